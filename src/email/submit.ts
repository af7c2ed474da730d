/**
 * The one submit function of transactional mail: every door (HTTP single, bulk and templated sends, SMTP submission,
 * form notifications, marketing test emails) hands normalized messages here. It checks the From domains and which
 * recipients are suppressed, then commits each message with its recipients, tracked links and delivery work rows
 * atomically (one transaction, or on PostgreSQL one statement) before anything is acknowledged. Campaign and drip
 * mail do not pass here: marketing expands a send into delivery rows of its own.
 */
import { pipelineMetrics } from '../http/pipeline-metrics.ts';
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/types.ts';
import { AppError } from '../errors/app-error.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { verifiedDomainIds } from '../accounts/domains.service.ts';
import { findLinks } from '../mail/links.ts';
import { domainOf, type Mailbox } from '../mail/addresses.ts';
import { sealContent, sealCustomHeaders, sealLinkTarget } from '../mail/content.ts';
import { newMessageId } from '../mail/message-ids.ts';
import { releaseSealedAttachments, type NormalizedMessage, type TrackingOptions } from './message-input.ts';
import { findIdempotencyKey } from './messages.repository.ts';
import { acceptedWriter, IDEMPOTENCY_TTL_MS, type Plan } from './accepted-writer.ts';
import { TRANSACTIONAL_QUEUE } from './queues.ts';
import { recipientStart, suppressedRecipients } from '../accounts/suppression.ts';
import type { SendResponse } from './email.schemas.ts';
import { subjectHash } from './message-log.service.ts';

/** Who submits: the account, and the domain its key is bound to (if any). */
export interface Submitter {
  customerId: number;
  domain: string | null;
}

/** Options of one submission. */
export interface SubmitOptions {
  source: 'api' | 'template' | 'smtp' | 'system';
  tracking: TrackingOptions;
  /** The Idempotency-Key header and a hash of the request it came with. */
  idempotency?: { key: string; requestHash: string };
  /** Field path of each message, for error messages (`data.messages[3]`). */
  paths?: string[];
}

/** The `data` of the send response of a message none of whose recipients is sent to. */
export const ALL_SUPPRESSED = 'Not sent: every recipient is suppressed';

/**
 * Refuses, after the fact, a single send whose every recipient is suppressed: the message is recorded (its receipt
 * says why each recipient was not sent to), and the answer says it was not sent (docs/decisions.md).
 */
export function refuseIfAllSuppressed(response: SendResponse): SendResponse {
  if (response.data !== ALL_SUPPRESSED) return response;
  throw new AppError(
    'email.recipients_suppressed',
    `${ALL_SUPPRESSED}; the receipt of ${response.sourceTrackingId} gives each reason`,
    { extra: { sourceTrackingId: response.sourceTrackingId } },
  );
}

/**
 * Submits messages: all are accepted and committed, or none is. Returns one send response per message. The messages'
 * attachments are emptied once sealed, so a large message waits for its commit in its sealed form only.
 */
export async function submitMessages(
  ctx: AppContext,
  who: Submitter,
  messages: NormalizedMessage[],
  opts: SubmitOptions,
): Promise<SendResponse[]> {
  checkRecipientCap(ctx.config.maxRecipientsPerMessage, messages, opts.paths);
  const now = Date.now();
  const replay = await replayIdempotent(ctx, who, opts, now);
  if (replay) return replay;
  // Two independent reads, side by side: on PostgreSQL each may wait for a round trip (the domains are cached).
  const [domains, suppressed] = await Promise.all([
    verifiedFromDomains(ctx, who, messages, opts.paths),
    suppressedRecipients(ctx, who.customerId, opts.source, messages),
  ]);
  const plans = messages.map((m) =>
    planMessage(ctx, who, m, domains.get(domainOf(m.from.address))!, opts, now, suppressed),
  );
  messages.forEach(releaseSealedAttachments); // sealed in the plans: the commit waits holding only that copy
  const responses = plans.map((p) => p.response);
  try {
    await ctx.committer.merge(acceptedWriter, {
      plans,
      ...(opts.idempotency && {
        idempotency: {
          customerId: who.customerId,
          ...opts.idempotency,
          response: JSON.stringify(responses),
          now,
        },
      }),
    });
  } catch (err) {
    if (opts.idempotency && isUniqueViolation(err)) {
      const raced = await replayIdempotent(ctx, who, opts, now);
      if (raced) return raced;
    }
    throw err;
  }
  announceAccepted(ctx, messages, suppressed);
  return responses;
}

/**
 * Sends a scheduled message whose time has come, under its scheduled id: the same checks and rows as any submission,
 * written in one transaction with `claim`, which must win (see email/schedule.repository.ts settleScheduled) for anything to
 * be written. Returns whether it won; a message that fails the checks throws and writes nothing.
 */
export async function submitClaimed(
  ctx: AppContext,
  who: Submitter,
  message: NormalizedMessage,
  sent: { id: string; tracking: TrackingOptions },
  claim: (trx: Queryable, now: number) => Promise<boolean>,
): Promise<boolean> {
  const messages = [message];
  checkRecipientCap(ctx.config.maxRecipientsPerMessage, messages);
  const now = Date.now();
  const [domains, suppressed] = await Promise.all([
    verifiedFromDomains(ctx, who, messages),
    suppressedRecipients(ctx, who.customerId, 'api', messages),
  ]);
  const opts: SubmitOptions = { source: 'api', tracking: sent.tracking };
  const domainId = domains.get(domainOf(message.from.address))!;
  const plan = planMessage(ctx, who, message, domainId, opts, now, suppressed, sent.id);
  const won = await ctx.database.db.transaction().execute(async (trx) => {
    if (!(await claim(trx, now))) return false;
    await acceptedWriter.write(trx, [{ plans: [plan] }]);
    return true;
  });
  if (won) announceAccepted(ctx, messages, suppressed);
  return won;
}

/** After a commit: wakes the delivery lane and counts what was accepted and suppressed. */
function announceAccepted(
  ctx: AppContext,
  messages: NormalizedMessage[],
  suppressed: ReadonlyMap<string, string>,
): void {
  ctx.wake(TRANSACTIONAL_QUEUE);
  const lane = 'transactional';
  pipelineMetrics.accepted.inc({ lane }, messages.length);
  if (suppressed.size > 0) pipelineMetrics.suppressed.inc({ lane }, countSuppressed(messages, suppressed));
}

/** How many recipients of the messages are suppressed. */
function countSuppressed(messages: NormalizedMessage[], suppressed: ReadonlyMap<string, string>): number {
  let n = 0;
  for (const m of messages)
    for (const box of [...m.to, ...m.cc, ...m.bcc]) if (suppressed.has(box.address.toLowerCase())) n++;
  return n;
}

/** Refuses a message naming more recipients (to, cc and bcc together) than the cap, before anything is read or written. */
export function checkRecipientCap(
  cap: number,
  messages: readonly NormalizedMessage[],
  paths?: string[],
): void {
  messages.forEach((m, i) => {
    const count = m.to.length + m.cc.length + m.bcc.length;
    if (count <= cap) return;
    const field = paths?.[i] ?? 'data.message';
    const problem = `has ${count} recipients; a message may have at most ${cap} (recipients, cc and bcc together)`;
    throw new AppError('email.too_many_recipients', `${field} ${problem}`, {
      details: [{ field, message: problem }],
    });
  });
}

/** For a repeated Idempotency-Key: the earlier response when the request is the same, 422 when it differs. */
async function replayIdempotent(
  ctx: AppContext,
  who: Submitter,
  opts: SubmitOptions,
  now: number,
): Promise<SendResponse[] | undefined> {
  if (!opts.idempotency) return undefined;
  const row = await findIdempotencyKey(ctx.database.reader, who.customerId, opts.idempotency.key);
  if (!row || row.created_at < now - IDEMPOTENCY_TTL_MS) return undefined;
  if (row.request_hash !== opts.idempotency.requestHash)
    throw new AppError(
      'email.idempotency_mismatch',
      'this Idempotency-Key was already used with a different request',
    );
  await ctx.database.flushed(); // the first request may be waiting for its commit to reach the disk: so does this one
  return JSON.parse(row.response) as SendResponse[];
}

/** Checks that every From address is on a verified domain of the account (and the key's own domain, for a domain key). */
export async function verifiedFromDomains(
  ctx: AppContext,
  who: Submitter,
  messages: NormalizedMessage[],
  paths?: string[],
): Promise<Map<string, string>> {
  const verified = await verifiedDomainIds(
    ctx.database,
    who.customerId,
    new Set(messages.map((m) => domainOf(m.from.address))),
  );
  const out = new Map<string, string>();
  messages.forEach((m, i) => {
    const domain = domainOf(m.from.address);
    const field = `${paths?.[i] ?? 'data.message'}.headers.from`;
    const id = verified.get(domain);
    if (!id)
      throw new AppError(
        'email.unverified_from',
        `${field}: ${domain} is not a verified domain of this account`,
        {
          details: [{ field, message: 'domain is not verified' }],
        },
      );
    if (who.domain && who.domain !== domain)
      throw new AppError('email.unverified_from', `${field}: this API key may only send from ${who.domain}`, {
        details: [{ field, message: `must be on ${who.domain}` }],
      });
    out.set(domain, id);
  });
  return out;
}

/** Each address once, in the order given: to, then cc, then bcc. */
function recipientsOf(m: NormalizedMessage): { box: Mailbox; kind: 'to' | 'cc' | 'bcc' }[] {
  const seen = new Set<string>();
  const out: { box: Mailbox; kind: 'to' | 'cc' | 'bcc' }[] = [];
  for (const [kind, list] of [
    ['to', m.to],
    ['cc', m.cc],
    ['bcc', m.bcc],
  ] as const) {
    for (const box of list) {
      const key = box.address.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ box, kind });
    }
  }
  return out;
}

function planMessage(
  ctx: AppContext,
  who: Submitter,
  m: NormalizedMessage,
  domainId: string,
  opts: SubmitOptions,
  now: number,
  suppressed: ReadonlyMap<string, string>,
  id = newMessageId(now),
): Plan {
  const recipients = recipientsOf(m);
  const pending =
    suppressed.size === 0
      ? recipients
      : recipients.filter((r) => !suppressed.has(r.box.address.toLowerCase()));
  const links = opts.tracking.linkTracking && m.html ? findLinks(m.html) : [];
  const customHeaders = Object.fromEntries(
    Object.entries(m.headers).filter(([k]) => k.toLowerCase().startsWith('x-')),
  );
  const content = sealContent(ctx.sealer, id, {
    subject: m.subject,
    from: m.from,
    replyTo: m.replyTo,
    to: m.to,
    cc: m.cc,
    headers: m.headers,
    text: m.text,
    html: m.html,
    attachments: m.attachments,
    unsubscribeUrl: opts.tracking.unsubscribeUrl,
  });
  const allSuppressed = recipients.length > 0 && pending.length === 0;
  const response: SendResponse = {
    sourceTrackingId: id,
    data: allSuppressed ? ALL_SUPPRESSED : 'Service OK',
  };
  if (Object.keys(customHeaders).length > 0) response.customHeaders = customHeaders;
  return {
    id,
    response,
    now,
    message: {
      id,
      customer_id: who.customerId,
      domain_id: domainId,
      header_message_id: `<${id}@${domainOf(m.from.address)}>`,
      from_addr: m.from.address,
      source: opts.source,
      lane: 'transactional',
      allow_non_tls: m.allowNonTLS ? 1 : 0,
      force_secure: m.forceSecureNotification ? 1 : 0,
      open_tracking: opts.tracking.openTracking && m.html ? 1 : 0,
      link_tracking: links.length > 0 ? 1 : 0,
      custom_headers: sealCustomHeaders(ctx.sealer, id, customHeaders),
      content,
      recipient_count: recipients.length,
      pending_count: pending.length,
      created_at: now,
      subject_hash: subjectHash(ctx, m.subject),
      ...(pending.length === 0 && { finished_at: now }),
    },
    recipients: recipients.map((r) => ({
      message_id: id,
      customer_id: who.customerId,
      address: r.box.address,
      name: r.box.name || null,
      kind: r.kind,
      ...recipientStart(suppressed, r.box.address),
      updated_at: now,
    })),
    links: links.map((l) => ({
      message_id: id,
      position: l.position,
      target_url: sealLinkTarget(ctx.sealer, id, l.position, l.url),
    })),
  };
}
