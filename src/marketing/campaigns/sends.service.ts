/**
 * Campaign sends: one mailing to one list, now (`POST /campaign_mailing_sends`) or at a time
 * (`POST /campaign_mailing_schedules`). Starting a send freezes its content and, when expansion begins, its audience;
 * the expansion work row then turns the audience into delivery rows batch by batch (see expand.ts). A send can be
 * cancelled while scheduled, paused or resumed while it runs, and cancelled while it runs.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/types.ts';
import { AppError } from '../../errors/app-error.ts';
import { enqueueJob } from '../../jobs/jobs.repository.ts';
import { isVerifiedDomain } from '../../accounts/domains.service.ts';
import { postalAddressOf } from '../../accounts/settings.service.ts';
import { domainOf, parseMailbox } from '../../mail/addresses.ts';
import { findLinks } from '../../mail/links.ts';
import { resolveId } from '../ids.repository.ts';
import { lockMailingRow, mailingBySubject, requireMailing } from '../mailings/mailings.service.ts';
import { ensureDefaultList, requireList } from '../lists/lists.service.ts';
import { requireDynamicList } from '../segments/segments.service.ts';
import { EXPAND_QUEUE, expandJobKey } from './expand.ts';
import { sealCampaignLink } from '../deliveries/link-targets.ts';
import type { SendContent } from '../deliveries/content.ts';
import {
  finishIfSettled,
  lockSendState,
  MARKETING_DELIVERY_QUEUE,
  requeueParked,
} from '../deliveries/deliveries.service.ts';
import {
  findSend,
  findSendByJid,
  insertSend,
  insertSendLinks,
  mailingHasSend,
  moveSend,
  scheduledSends,
  sendsOfMailingRows,
  type SendRow,
} from './sends.repository.ts';
import { checkTemplate } from '../mailings/personalise.ts';

/** A stored send, as the rooms above campaigns read it. */
export type { SendRow };

/** What a send or a schedule asks for, as received. */
export interface SendRequest {
  mailingId?: string | number;
  /** Names the mailing when no id is given (subjects are unique per account). */
  subject?: string;
  listId?: string | number;
  /** Narrows the list (the default list when none is named) to the subscribers a dynamic list matches. */
  dynamicListId?: string | number | null;
  fromEmail?: string;
  fromName?: string;
  senderEmail?: string;
  customerName?: string;
  recipientEmails?: string[];
  /** Epoch ms; absent for an immediate send. */
  sendAt?: number;
  /** Refuses the send when the mailing already has one (the console sends a mailing once, then duplicates it). */
  firstOnly?: boolean;
}

/** Most extra recipient addresses one send takes. */
const MAX_EXTRA_RECIPIENTS = 50;

const invalid = (field: string, message: string) =>
  new AppError('request.invalid', `${field}: ${message}`, { details: [{ field, message }] });

function requireAddress(field: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw invalid(field, 'is required');
  const box = parseMailbox(value.trim());
  if (!box || box.name !== '') throw invalid(field, 'must be an email address');
  return box.address;
}

/** Checks a send request and creates the send with its extra deliveries and its expansion work row. */
export async function createSend(
  ctx: AppContext,
  customerId: number,
  req: SendRequest,
  now = Date.now(),
): Promise<SendRow> {
  const db = ctx.database.db;
  const mailing = await resolveMailing(db, customerId, req);
  const audience = await resolveAudience(db, customerId, req);
  const content = await frozenContent(ctx, customerId, req, mailing);
  const sendAt = req.sendAt ?? now;
  const send = await db
    .transaction()
    .execute((trx) =>
      storeSend(ctx, trx, customerId, { mailingId: mailing.id, audience, content, req, sendAt, now }),
    );
  ctx.wake(EXPAND_QUEUE);
  return send;
}

type Mailing = Awaited<ReturnType<typeof resolveMailing>>;
type Audience = Awaited<ReturnType<typeof resolveAudience>>;

/**
 * The list a send goes to (the default list when only a dynamic list is named), the dynamic list narrowing it, and the
 * list name the send shows.
 */
async function resolveAudience(db: Queryable, customerId: number, req: SendRequest) {
  const dynamic =
    req.dynamicListId === undefined || req.dynamicListId === null || req.dynamicListId === ''
      ? null
      : await requireDynamicList(db, customerId, req.dynamicListId);
  if (req.listId === undefined && !dynamic) throw invalid('subscription_list_id', 'is required');
  const list =
    req.listId === undefined
      ? await ensureDefaultList(db, customerId)
      : await requireList(db, customerId, req.listId);
  const name = !dynamic
    ? list.name
    : req.listId === undefined
      ? dynamic.name
      : `${list.name} / ${dynamic.name}`;
  return { list, dynamic, name };
}

/** Checks the addresses and overrides of a send request and freezes the content the send will deliver. */
async function frozenContent(
  ctx: AppContext,
  customerId: number,
  req: SendRequest,
  mailing: Mailing,
): Promise<SendContent> {
  const fromEmail = requireAddress('from_email', req.fromEmail ?? mailing.from_email ?? undefined);
  if (req.senderEmail !== undefined && req.senderEmail !== '')
    requireAddress('sender_email', req.senderEmail);
  const extra = (req.recipientEmails ?? []).map((e, i) => requireAddress(`recipient_emails[${i}]`, e));
  if (extra.length > MAX_EXTRA_RECIPIENTS)
    throw invalid('recipient_emails', `at most ${MAX_EXTRA_RECIPIENTS} addresses`);
  if (!(await isVerifiedDomain(ctx.database, customerId, domainOf(fromEmail))))
    throw new AppError(
      'marketing.sender_invalid',
      `from_email: ${domainOf(fromEmail)} is not a verified domain of this account`,
      {
        details: [{ field: 'from_email', message: 'domain is not verified' }],
      },
    );
  // A schedule naming its mailing by subject sends the mailing's own subject; otherwise a subject given overrides it.
  const subject = (req.mailingId !== undefined && req.subject?.trim()) || mailing.subject;
  return {
    subject: checkOverride('subject', subject, true),
    html: mailing.html_part,
    text: mailing.text_part,
    fromEmail,
    fromName: checkOverride('from_name', req.fromName?.trim() || mailing.from_name || '', false),
    customerName: req.customerName?.trim() || null,
    postalAddress: await postalAddressOf(ctx, customerId),
    recipientEmails: extra,
  };
}

/** Writes a send with its tracked links and its expansion work row, in the caller's transaction. */
async function storeSend(
  ctx: AppContext,
  trx: Queryable,
  customerId: number,
  s: {
    mailingId: number;
    audience: Audience;
    content: SendContent;
    req: SendRequest;
    sendAt: number;
    now: number;
  },
): Promise<SendRow> {
  const { audience, content, sendAt, now } = s;
  if (s.req.firstOnly) await refuseSecondSend(ctx, trx, s.mailingId);
  const id = await insertSend(trx, {
    customer_id: customerId,
    campaign_mailing_id: s.mailingId,
    subscription_list_id: audience.list.id,
    subscription_list_name: audience.name,
    dynamic_list_id: audience.dynamic?.id ?? null,
    dynamic_filters: audience.dynamic?.filters ?? null,
    state: sendAt > now ? 'scheduled' : 'expanding',
    jid: randomBytes(12).toString('hex'),
    send_at: sendAt,
    content: JSON.stringify(content),
    frozen_at: null,
    customer_name: content.customerName,
    sender_email: s.req.senderEmail?.trim() || null,
    created_at: now,
    sent_at: null,
    finished_at: null,
    updated_at: now,
  });
  if (content.html)
    await insertSendLinks(
      trx,
      id,
      findLinks(content.html).map((l) => ({
        position: l.position,
        url: sealCampaignLink(ctx.sealer, { sendId: id }, l.position, l.url),
      })),
    );
  const row = (await findSend(trx, customerId, id))!;
  await enqueueJob(
    trx,
    { queue: EXPAND_QUEUE, payload: { sendId: id }, runAt: sendAt, uniqueKey: expandJobKey(id, 0) },
    now,
  );
  return row;
}

/** Refuses a send of a mailing that already has one; the mailing's row stays locked until the send is written. */
async function refuseSecondSend(ctx: AppContext, trx: Queryable, mailingId: number): Promise<void> {
  await lockMailingRow(trx, ctx.database.dialect, mailingId);
  if (await mailingHasSend(trx, mailingId))
    throw new AppError(
      'marketing.mailing_sent',
      'this mailing was already sent; duplicate it to send it again',
    );
}

/** A header value a send overrides: one line, and for the subject a template that renders. */
function checkOverride(field: string, value: string, template: boolean): string {
  if (/[\r\n]/.test(value)) throw invalid(field, 'must be one line');
  const problem = template ? checkTemplate(value) : null;
  if (problem)
    throw new AppError('marketing.template_invalid', `${field}: ${problem}`, {
      details: [{ field, message: problem }],
    });
  return value;
}

async function resolveMailing(db: Queryable, customerId: number, req: SendRequest) {
  if (req.mailingId !== undefined) return requireMailing(db, customerId, req.mailingId);
  if (req.subject === undefined || req.subject.trim() === '')
    throw invalid('campaign_mailing_id', 'is required (or a subject naming the mailing)');
  const m = await mailingBySubject(db, customerId, req.subject);
  if (!m)
    throw new AppError(
      'marketing.mailing_not_found',
      `no campaign mailing has the subject "${req.subject.trim()}"`,
    );
  return m;
}

/** A send of the account by id. */
export async function requireSend(db: Queryable, customerId: number, raw: string | number): Promise<SendRow> {
  const id = await resolveId(db, 'campaign_mailing_sends', customerId, raw);
  const send = id === null ? undefined : await findSend(db, customerId, id);
  if (!send) throw new AppError('marketing.send_not_found', `no campaign mailing send ${String(raw)}`);
  return send;
}

/** Cancels a send that has not started; a started one is 409. */
export async function cancelSchedule(
  ctx: AppContext,
  customerId: number,
  jid: string,
  now = Date.now(),
): Promise<SendRow> {
  const db = ctx.database.db;
  const send = await findSendByJid(db, customerId, jid);
  if (!send) throw new AppError('marketing.send_not_found', `no scheduled campaign mailing with jid ${jid}`);
  if (!(await moveSend(db, send.id, ['scheduled'], 'cancelled', now, { finished_at: now })))
    throw new AppError(
      'marketing.send_state',
      `the send is ${send.state}; only a scheduled send can be cancelled`,
    );
  return (await findSend(db, customerId, send.id))!;
}

/** The account's scheduled sends. */
export async function schedulesOf(ctx: AppContext, customerId: number): Promise<SendRow[]> {
  return scheduledSends(ctx.database.reader, customerId);
}

/**
 * Moves a send of the account from one of `from` to `to` with its state row locked, running `also` in the same
 * transaction; a send in another state is 409 with `what` said.
 */
async function moveLocked(
  ctx: AppContext,
  customerId: number,
  raw: string | number,
  move: { from: string[]; to: string; what: string; now: number; finishedAt?: number },
  also?: (trx: Queryable, sendId: number) => Promise<unknown>,
): Promise<SendRow> {
  const send = await requireSend(ctx.database.db, customerId, raw);
  const moved = await ctx.database.db.transaction().execute(async (trx) => {
    await lockSendState(trx, ctx.database.dialect, send.id);
    const extra = move.finishedAt === undefined ? undefined : { finished_at: move.finishedAt };
    if (!(await moveSend(trx, send.id, move.from, move.to, move.now, extra))) return false;
    await also?.(trx, send.id);
    return true;
  });
  if (!moved) throw new AppError('marketing.send_state', `the send is ${send.state}; ${move.what}`);
  return (await findSend(ctx.database.db, customerId, send.id))!;
}

/**
 * Pauses a running send: no new delivery starts (waiting ones are parked as they come up) and expansion stops after
 * its current batch. A scheduled send cannot be paused (cancel it instead).
 */
export async function pauseSend(
  ctx: AppContext,
  customerId: number,
  raw: string | number,
  now = Date.now(),
): Promise<SendRow> {
  return moveLocked(ctx, customerId, raw, {
    from: ['expanding', 'sending'],
    to: 'paused',
    what: 'only an expanding or sending send can be paused',
    now,
  });
}

/** Resumes a paused send: parked deliveries are queued again and expansion continues from where it stopped. */
export async function resumeSend(
  ctx: AppContext,
  customerId: number,
  raw: string | number,
  now = Date.now(),
): Promise<SendRow> {
  const send = await requireSend(ctx.database.db, customerId, raw);
  const resumed = await ctx.database.db.transaction().execute(async (trx) => {
    if ((await lockSendState(trx, ctx.database.dialect, send.id)) !== 'paused') return false;
    const expanded = (await findSend(trx, customerId, send.id))!.expanded_at !== null;
    await moveSend(trx, send.id, ['paused'], expanded ? 'sending' : 'expanding', now);
    await requeueParked(trx, send.id, now);
    // The last deliveries may have settled while the send was paused.
    if (expanded) await finishIfSettled(trx, send.id, now);
    if (!expanded)
      await enqueueJob(
        trx,
        { queue: EXPAND_QUEUE, payload: { sendId: send.id }, uniqueKey: `campaign.resume:${send.id}:${now}` },
        now,
      );
    return true;
  });
  if (!resumed)
    throw new AppError(
      'marketing.send_state',
      `the send is ${send.state}; only a paused send can be resumed`,
    );
  ctx.wake(EXPAND_QUEUE);
  ctx.wake(MARKETING_DELIVERY_QUEUE);
  return (await findSend(ctx.database.db, customerId, send.id))!;
}

/**
 * Cancels a running (or paused) send: expansion stops after its current batch and every delivery not yet attempted is
 * skipped when its turn comes (parked ones are released to be skipped). What was sent stays counted.
 */
export async function cancelSend(
  ctx: AppContext,
  customerId: number,
  raw: string | number,
  now = Date.now(),
): Promise<SendRow> {
  const send = await moveLocked(
    ctx,
    customerId,
    raw,
    {
      from: ['expanding', 'sending', 'paused'],
      to: 'cancelled',
      what: 'only an expanding, sending or paused send can be cancelled',
      now,
      finishedAt: now,
    },
    (trx, id) => requeueParked(trx, id, now),
  );
  ctx.wake(MARKETING_DELIVERY_QUEUE);
  return send;
}

/** The latest sends of a mailing, newest first. */
export async function sendsOfMailing(
  ctx: AppContext,
  customerId: number,
  rawMailingId: string,
  limit = 20,
): Promise<SendRow[]> {
  const mailing = await requireMailing(ctx.database.reader, customerId, rawMailingId);
  return sendsOfMailingRows(ctx.database.reader, customerId, Number(mailing.id), limit);
}
