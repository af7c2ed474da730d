/**
 * The message log: searching an account's messages (keyset pages), a message's receipt as a timeline per recipient,
 * and opening its content, which only a reader of protected content may do and which is always recorded in the audit
 * trail. Subjects are sealed with the content, so the log finds a subject by a keyed hash of it (exact match).
 */
import { createHmac } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { deriveKey } from '../crypto/derive.ts';
import { openContent, type StoredContent } from '../mail/content.ts';
import { record, type AuditActor } from '../audit/audit.service.ts';
import { eventsOf, recipientsOf, searchMessages, type LogFilter } from './message-log.repository.ts';
import { findMessage, listLinks } from './messages.repository.ts';

const subjectKeys = new WeakMap<Buffer, Buffer>();

/** The keyed hash of a subject as the log stores and searches it: case and runs of white space do not matter. */
export function subjectHash(ctx: Pick<AppContext, 'keys'>, subject: string): string {
  let key = subjectKeys.get(ctx.keys.tracking);
  if (!key) subjectKeys.set(ctx.keys.tracking, (key = deriveKey(ctx.keys.tracking, 'subject-search')));
  const normal = subject.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
  return createHmac('sha256', key).update(normal).digest('base64url').slice(0, 32);
}

/** The search as a person gives it. */
export interface LogQuery {
  recipient?: string;
  trackingId?: string;
  subject?: string;
  status?: 'queued' | 'deferred' | 'delivered' | 'failed';
  from?: number;
  to?: number;
  /** The cursor of the previous page's last row (`next` of that page). */
  after?: string;
  limit?: number;
}

/** One page of the log. `next` is the cursor of the following page, or null on the last one. */
export async function searchLog(ctx: AppContext, customerId: number, q: LogQuery) {
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const cursor = q.after ? /^(\d{1,15})\.([\w-]{1,64})$/.exec(q.after) : null;
  if (q.after && !cursor)
    throw new AppError('request.invalid', 'the page cursor is not valid; start the search again');
  const filter: LogFilter = {
    customerId,
    recipient: q.recipient?.trim() || undefined,
    trackingId: q.trackingId?.trim() || undefined,
    subjectHash: q.subject?.trim() ? subjectHash(ctx, q.subject) : undefined,
    status: q.status,
    from: q.from,
    to: q.to,
    after: cursor ? { createdAt: Number(cursor[1]), id: cursor[2]! } : undefined,
    limit: limit + 1,
  };
  const db = ctx.database.reader;
  const rows = await searchMessages(db, filter);
  const page = rows.slice(0, limit);
  const recipients = await recipientsOf(
    db,
    page.map((m) => m.id),
  );
  const last = page.at(-1);
  return {
    messages: page.map((m) => ({
      ...m,
      created_at: Number(m.created_at),
      recipients: recipients.filter((r) => r.message_id === m.id),
    })),
    next: rows.length > limit && last ? `${Number(last.created_at)}.${last.id}` : null,
  };
}

/** One step of a recipient's timeline. */
export interface TimelineStep {
  at: number;
  what: 'accepted' | 'attempt' | 'delivered' | 'bounced' | 'opened' | 'clicked' | 'complained';
  detail: string;
}

const STEP: Record<string, TimelineStep['what']> = {
  temporary_failure: 'attempt',
  delivered: 'delivered',
  permanent_failure: 'bounced',
  opened: 'opened',
  clicked: 'clicked',
  complained: 'complained',
};

/** A message (without its content) and a timeline per recipient: accepted, attempts, delivered or bounced, opens, clicks, complaints. */
export async function messageTimeline(ctx: AppContext, customerId: number, id: string) {
  const db = ctx.database.db;
  const message = await findMessage(db, customerId, id);
  if (!message)
    throw new AppError('email.message_not_found', 'Message with this tracking id was not found', {
      extra: { sourceTrackingId: id },
    });
  const [recipients, events, links] = await Promise.all([
    recipientsOf(db, [id]),
    eventsOf(db, id),
    listLinks(db, id),
  ]);
  const accepted = Number(message.created_at);
  return {
    message: {
      ...message,
      content: undefined,
      hasContent: message.content !== null,
      created_at: accepted,
      links,
    },
    recipients: recipients.map((r) => ({
      ...r,
      steps: [
        { at: accepted, what: 'accepted', detail: 'Accepted by Sealpost' } as TimelineStep,
        ...events
          .filter((e) => e.recipient_id === r.id && STEP[e.event])
          .map((e) => {
            const data = JSON.parse(e.data) as { status?: string; response?: string; target_url?: string };
            const detail = [data.status, data.response, data.target_url].filter(Boolean).join(' — ');
            return { at: Number(e.created_at), what: STEP[e.event]!, detail } satisfies TimelineStep;
          }),
      ],
    })),
  };
}

/** Opens a message's content for a reader of protected content, recording the view in the audit trail first. */
export async function readMessageContent(
  ctx: AppContext,
  customerId: number,
  id: string,
  by: { actor: AuditActor; ip?: string; allowed: boolean },
): Promise<StoredContent> {
  if (!by.allowed)
    throw new AppError('auth.forbidden', 'reading message content needs the protected-content permission');
  const db = ctx.database.db;
  const message = await findMessage(db, customerId, id);
  if (!message)
    throw new AppError('email.message_not_found', 'Message with this tracking id was not found', {
      extra: { sourceTrackingId: id },
    });
  if (message.content === null)
    throw new AppError('email.content_purged', 'the content of this message was removed by retention');
  await record(db, {
    accountId: customerId,
    actor: by.actor,
    action: 'message.content_read',
    target: `message:${id}`,
    ip: by.ip,
  });
  return openContent(ctx.sealer, id, message.content);
}
