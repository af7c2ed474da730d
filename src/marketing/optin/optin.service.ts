/**
 * Double opt-in: a list that asks for it keeps new members unconfirmed (they receive no campaign or drip email) until
 * they open the link of their confirmation email and press its button. The email goes through the transactional
 * pipeline from the list's confirmation sender; its link carries a random nonce (only its hash is stored) under the
 * tracking key's signature, works once and expires. Members the list had before it started asking count as confirmed.
 */
import { brandOf, type Brand } from '../../accounts/brand.service.ts';
import { brandedEmail } from '../../mail/branded-email.ts';
import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { isVerifiedDomain } from '../../accounts/domains.service.ts';
import { domainOf, parseMailbox } from '../../mail/addresses.ts';
import { signPayload, verifyPayload } from '../../mail/tokens.ts';
import { submitSystemMail, type SystemMail } from '../../email/system-mail.ts';
import type { QueueSpec } from '../../jobs/worker.ts';
import { PermanentJobError } from '../../jobs/retry.ts';
import { findListOf, requireList, viewOfList, type ListRow } from '../lists/lists.service.ts';
import { CONFIRM_QUEUE } from '../subscribers/rows.service.ts';
import {
  claimConfirmation,
  findListById,
  confirmByHash,
  confirmExisting,
  findByConfirmHash,
  membersToConfirm,
  releaseConfirmation,
  saveListOptIn,
  unconfirmedAmong,
} from './optin.repository.ts';

/** How long a confirmation link works. */
export const CONFIRM_TTL_MS = 7 * 24 * 3_600_000;
/** Confirmation emails one work row sends before it hands over to a successor. */
const BATCH = 200;

/** A list's double opt-in and preference-page settings, as the console changes them. */
export interface ListOptIn {
  doubleOptIn: boolean;
  /** The From address of confirmation emails; required with double opt-in. */
  fromEmail?: string;
  public: boolean;
}

const invalid = (field: string, message: string) =>
  new AppError('request.invalid', `${field}: ${message}`, { details: [{ field, message }] });

/** Changes a list's settings. Turning double opt-in on counts the members it already has as confirmed. */
export async function setListOptIn(
  ctx: AppContext,
  customerId: number,
  rawListId: string | number,
  input: ListOptIn,
  now = Date.now(),
): Promise<ListRow> {
  const db = ctx.database.db;
  const list = await requireList(db, customerId, rawListId);
  let fromEmail: string | null = input.fromEmail?.trim() || list.confirm_from_email;
  if (input.doubleOptIn) {
    const box = fromEmail ? parseMailbox(fromEmail) : null;
    if (!box || box.name !== '') throw invalid('confirm_from_email', 'an email address is required');
    if (!(await isVerifiedDomain(ctx.database, customerId, domainOf(box.address))))
      throw new AppError(
        'marketing.sender_invalid',
        `confirm_from_email: ${domainOf(box.address)} is not a verified domain of this account`,
        { details: [{ field: 'confirm_from_email', message: 'domain is not verified' }] },
      );
    fromEmail = box.address;
  }
  await db.transaction().execute(async (trx) => {
    if (input.doubleOptIn && list.double_opt_in !== 1) await confirmExisting(trx, list.id, now);
    await saveListOptIn(
      trx,
      list.id,
      { doubleOptIn: input.doubleOptIn, fromEmail, public: input.public },
      now,
    );
  });
  return (await findListOf(db, customerId, list.id))!;
}

/** `PATCH /subscription_lists/<id>/settings`: changes the settings given, keeps the others. */
export async function patchListOptIn(
  ctx: AppContext,
  customerId: number,
  rawListId: string,
  patch: { double_opt_in?: boolean; confirm_from_email?: string; public?: boolean },
) {
  const list = await requireList(ctx.database.db, customerId, rawListId);
  const row = await setListOptIn(ctx, customerId, rawListId, {
    doubleOptIn: patch.double_opt_in ?? list.double_opt_in === 1,
    public: patch.public ?? list.public === 1,
    ...(patch.confirm_from_email !== undefined && { fromEmail: patch.confirm_from_email }),
  });
  return viewOfList(ctx, customerId, row);
}

const hashOf = (nonce: string) => createHash('sha256').update(nonce).digest('hex');
const TOKEN_SHAPE = /^oc\.[0-9a-f]{32}$/;

/** The public URL of a confirmation link. */
export const confirmUrl = (ctx: AppContext, nonce: string) =>
  `${ctx.publicUrl}/confirm/${signPayload(ctx.keys.tracking, `oc.${nonce}`)}`;

/** The confirmation-email queue of the worker role. */
export function confirmQueue(ctx: AppContext): Record<string, QueueSpec> {
  return {
    [CONFIRM_QUEUE]: {
      concurrency: 1,
      handler: async (job) => {
        const listId = (job.data as { listId?: unknown } | null)?.listId;
        if (typeof listId !== 'number') throw new PermanentJobError('confirmation work row without a listId');
        await sendConfirmations(ctx, listId);
      },
    },
  };
}

/** Sends the confirmation emails a list's new members still wait for; returns how many went. */
export async function sendConfirmations(ctx: AppContext, listId: number, now = Date.now): Promise<number> {
  const db = ctx.database.db;
  const row = await findListById(db, listId);
  if (!row || row.double_opt_in !== 1 || !row.confirm_from_email) return 0;
  let sent = 0;
  const brand = await brandOf(ctx, Number(row.customer_id));
  for (;;) {
    const members = await membersToConfirm(db, listId, BATCH);
    for (const m of members) {
      const nonce = randomBytes(16).toString('hex');
      const at = now();
      const sid = Number(m.subscriber_id);
      if (!(await claimConfirmation(db, listId, sid, hashOf(nonce), at + CONFIRM_TTL_MS, at))) continue;
      try {
        await submitSystemMail(
          ctx,
          Number(row.customer_id),
          confirmationEmail(row, m.email, confirmUrl(ctx, nonce), brand),
        );
      } catch (err) {
        await releaseConfirmation(db, listId, sid);
        throw err;
      }
      sent++;
    }
    if (members.length < BATCH) return sent;
  }
}

function confirmationEmail(list: ListRow, to: string, url: string, brand: Brand): SystemMail {
  const name = list.name;
  const body = brandedEmail(brand, {
    heading: 'Confirm your subscription',
    paragraphs: [`Please confirm that you want to receive emails of the list "${name}".`],
    action: { label: 'Confirm my subscription', url },
    after: ['If you did not ask for this, ignore this email: nothing will be sent to you.'],
  });
  return {
    to: [{ address: to, name: '' }],
    from: { address: list.confirm_from_email!, name: '' },
    subject: `Confirm your subscription: ${name}`.replace(/[\r\n]+/g, ' '),
    html: body.html,
    text: body.text,
  };
}

/** What the confirm page shows. */
export interface ConfirmInfo {
  email: string;
  listName: string;
  /** The link was used before: the membership is confirmed and nothing changes. */
  alreadyConfirmed: boolean;
  /** The list's account's brand. */
  brand: Brand;
}

const notValid = () => new AppError('not_found', 'this confirmation link is not valid or has expired');

async function membershipOf(ctx: AppContext, token: string, now: number) {
  const payload = verifyPayload(ctx.keys.tracking, token, TOKEN_SHAPE);
  if (payload === null) throw notValid();
  const hash = hashOf(payload.slice(3));
  const m = await findByConfirmHash(ctx.database.db, hash);
  if (!m) throw notValid();
  // A used link keeps saying so after it would have expired.
  if (m.confirmed_at === null && Number(m.confirm_expires_at) <= now) throw notValid();
  return { m, hash };
}

/** Reads what a confirmation link's page shows; changes nothing (mail scanners follow links). */
export async function confirmInfo(ctx: AppContext, token: string, now = Date.now()): Promise<ConfirmInfo> {
  const { m } = await membershipOf(ctx, token, now);
  const brand = await brandOf(ctx, Number(m.customer_id));
  return { email: m.email, listName: m.list_name, alreadyConfirmed: m.confirmed_at !== null, brand };
}

/** Confirms the membership of a link; a link used before (or by a second click meanwhile) says so and changes nothing. */
export async function confirmByToken(ctx: AppContext, token: string, now = Date.now()): Promise<ConfirmInfo> {
  const { m, hash } = await membershipOf(ctx, token, now);
  const info = { email: m.email, listName: m.list_name, brand: await brandOf(ctx, Number(m.customer_id)) };
  if (m.confirmed_at !== null) return { ...info, alreadyConfirmed: true };
  if (await confirmByHash(ctx.database.db, hash, now)) return { ...info, alreadyConfirmed: false };
  return { ...info, alreadyConfirmed: (await confirmInfo(ctx, token, now)).alreadyConfirmed };
}

/** The ids (as shown) among `subscriberIds` that have not confirmed their membership of a double opt-in list. */
export async function unconfirmedMembers(
  ctx: AppContext,
  listId: number,
  subscriberIds: string[],
): Promise<Set<string>> {
  return new Set(await unconfirmedAmong(ctx.database.reader, listId, subscriberIds));
}
