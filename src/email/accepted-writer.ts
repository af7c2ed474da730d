/**
 * Writes what the submit function accepted: the rows of each message (the message, its recipients, links and
 * delivery work rows) and the record of an Idempotency-Key, for a whole group-commit batch at once.
 */
import type { Insertable } from 'kysely';
import type { MessageLinksTable, Queryable } from '../db/types.ts';
import type { Merger } from '../db/group-commit.ts';
import { enqueueJobs, type NewJob } from '../jobs/jobs.repository.ts';
import {
  ACCEPTED_STATEMENT_MAX_MESSAGES,
  insertAcceptedStatement,
  insertLinks,
  insertMessages,
  insertRecipients,
  saveIdempotencyKey,
  type NewMessage,
  type NewRecipient,
} from './messages.repository.ts';
import { TRANSACTIONAL_QUEUE } from './queues.ts';
import type { SendResponse } from './email.schemas.ts';
import { appendEvent } from '../webhooks/webhooks.outbox.ts';

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/** The rows one message adds: the message, its recipients (those `queued` get a delivery work row), its links. */
export interface Plan {
  id: string;
  message: NewMessage;
  recipients: NewRecipient[];
  links: Insertable<MessageLinksTable>[];
  now: number;
  response: SendResponse;
}

/** One accepted request: its messages and, with an Idempotency-Key, the record of its response. */
export interface Accepted {
  plans: Plan[];
  idempotency?: { customerId: number; key: string; requestHash: string; response: string; now: number };
}

/**
 * Writes the accepted requests of a group-commit batch together: each table with one multi-row statement (messages,
 * recipients, links, work rows), then the idempotency records one by one. On PostgreSQL a batch without idempotency
 * records is written by a single statement instead, outside a transaction (see db/group-commit.ts).
 */
export const acceptedWriter: Merger<Accepted, void> = {
  async write(trx, items) {
    const plans = items.flatMap((a) => a.plans);
    await insertMessages(
      trx,
      plans.map((p) => p.message),
    );
    const recipients = plans.flatMap((p) => p.recipients);
    const ids = await insertRecipients(trx, recipients);
    await insertLinks(
      trx,
      plans.flatMap((p) => p.links),
    );
    const jobs: NewJob[] = [];
    let i = 0;
    for (const p of plans)
      for (const r of p.recipients) {
        const recipientId = ids[i++]!;
        if (r.status === 'queued')
          jobs.push({ queue: TRANSACTIONAL_QUEUE, payload: { recipientId }, runAt: p.now });
        else await appendSuppressed(trx, r, recipientId, p.now);
      }
    await enqueueJobs(trx, jobs, plans[0]?.now);
    for (const { idempotency: k } of items)
      if (k)
        await saveIdempotencyKey(
          trx,
          k.customerId,
          k.key,
          k.requestHash,
          k.response,
          k.now,
          k.now - IDEMPOTENCY_TTL_MS,
        );
    return items.map(() => undefined);
  },
  // A batch holding a request with an Idempotency-Key keeps the transaction: its record is written on its own. So does
  // one with more messages than a statement's parameters carry (large bulk requests), whose inserts go in chunks.
  statement(db, items) {
    if (items.some((a) => a.idempotency)) return undefined;
    const plans = items.flatMap((a) => a.plans);
    if (plans.length > ACCEPTED_STATEMENT_MAX_MESSAGES) return undefined;
    // Suppressed recipients get an event (and maybe webhook deliveries): the transaction path writes those.
    if (plans.some((p) => p.message.pending_count !== p.message.recipient_count)) return undefined;
    return insertAcceptedStatement(db, {
      messages: plans.map((p) => p.message),
      recipients: plans.flatMap((p) => p.recipients),
      links: plans.flatMap((p) => p.links),
      queue: TRANSACTIONAL_QUEUE,
    }).then(() => items.map(() => undefined));
  },
};

/** The event of a recipient settled as suppressed at acceptance, pushed as `api_mail_log_suppressed`. */
async function appendSuppressed(
  trx: Queryable,
  r: NewRecipient,
  recipientId: number,
  now: number,
): Promise<void> {
  await appendEvent(trx, {
    customer_id: r.customer_id,
    message_id: r.message_id,
    recipient_id: recipientId,
    event: 'suppressed',
    data: JSON.stringify({
      recipient: r.address,
      status: r.delivery_status,
      response: r.last_response ?? '',
    }),
    created_at: now,
  });
}
