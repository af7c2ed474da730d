/**
 * The webhook dispatcher: posts one delivery per work row of the `webhooks` queue. It loads the delivery, skips it when
 * the row is stale (the delivery finished or was dispatched again since), builds the payload from the event and its
 * message as they are now, signs it, POSTs it, and records the attempt, the delivery's state, the endpoint's run of
 * failures and the release of the message's next delivery in one transaction.
 * A failed attempt is thrown so the work row is retried on the webhook schedule (jitter added by the worker); the last
 * attempt, and an attempt refused by URL safety, fail the delivery for good.
 * Lifecycle: createDispatcher() once per worker (it owns the HTTP connection pools); handle() per work row; close()
 * when the worker stops.
 */
import type { Logger } from 'pino';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import type { Sealer } from '../crypto/sealer.ts';
import { completeJob, type JobRow } from '../jobs/jobs.repository.ts';
import { PermanentJobError } from '../jobs/retry.ts';
import { openContent, openCustomHeaders } from '../mail/content.ts';
import type { HttpPoster, PostResult } from './http-post.ts';
import { SIGNATURE_HEADERS, signatureHeader } from './signature.ts';
import { openSecret } from './secrets.ts';
import { releaseNext, type WebhookJob } from './webhooks.outbox.ts';
import { bumpStreak, disableEndpoint, resetStreak } from './webhooks.repository.ts';
import { findDispatch, insertAttempt, settleDelivery } from './deliveries.repository.ts';

/** When an endpoint is disabled: after `failures` consecutive failed attempts spanning at least `hours`. 0 failures: never. */
export interface DisablePolicy {
  failures: number;
  hours: number;
}

/** What the dispatcher is built from. */
export interface DispatcherDeps {
  /** Where deliveries are read (a connection that need not wait for an open transaction: see db/connect.ts). */
  reader: Kysely<DB>;
  /** Runs a unit of work in a transaction (shared with concurrent units when group commit is used). */
  transact<T>(unit: (trx: Transaction<DB>) => Promise<T>): Promise<T>;
  sealer: Sealer;
  poster: HttpPoster;
  /** Waits between attempts; one attempt more than it has entries. */
  retrySchedule: readonly number[];
  disable: DisablePolicy;
  log: Logger;
  now?: () => number;
}

/** A running dispatcher. */
export interface Dispatcher {
  handle(job: JobRow & { data: unknown }): Promise<void>;
  /**
   * Posts a pending delivery once, now, without a work row (a test event): the same body, signature and attempt log as
   * any other, and no retry; the delivery ends delivered or failed. Undefined when it is not pending under `seq`.
   */
  postOnce(deliveryId: number, seq: number): Promise<PostResult | undefined>;
  close(): void;
}

type Dispatch = NonNullable<Awaited<ReturnType<typeof findDispatch>>>;

/** The JSON body of a webhook POST. */
export interface WebhookBody {
  event_name: string;
  payload: {
    id: number;
    subject: string | null;
    header_message_id: string | null;
    source_tracking_id: string;
    outbound_queue_id: string | null;
    time: string;
    from: string | null;
    to: string | null;
    custom_headers: Record<string, string>;
  };
}

const isSuccess = (r: PostResult) =>
  r.error === null && r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
const describe = (r: PostResult) => r.error ?? `endpoint answered ${r.statusCode}`;

/** The dispatcher's parts with its clock settled. */
type Parts = DispatcherDeps & { now: () => number };

/** Creates a dispatcher over its parts. */
export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const parts: Parts = { ...deps, now: deps.now ?? Date.now };

  async function handle(job: JobRow & { data: unknown }): Promise<void> {
    const { deliveryId, seq } = parseJob(job.data);
    const d = await findDispatch(parts.reader, deliveryId);
    if (!d || d.state !== 'pending' || d.dispatch_seq !== seq) return;
    if (d.active !== 1 || d.disabled_at !== null)
      return endWithoutAttempt(parts, d, d.active !== 1 ? 'endpoint switched off' : 'endpoint disabled');
    const result = await post(parts, d);
    const last = result.refused || job.attempts > parts.retrySchedule.length;
    await record(parts, d, job, result, last);
    if (isSuccess(result)) return;
    if (last) throw new PermanentJobError(describe(result));
    throw new Error(describe(result));
  }

  async function postOnce(deliveryId: number, seq: number): Promise<PostResult | undefined> {
    const d = await findDispatch(parts.reader, deliveryId);
    if (!d || d.state !== 'pending' || d.dispatch_seq !== seq) return undefined;
    const result = await post(parts, d);
    await record(parts, d, undefined, result, true);
    return result;
  }

  return { handle, postOnce, close: () => parts.poster.close() };
}

/** Signs and POSTs the delivery's body as it is built now. */
function post(parts: Parts, d: Dispatch): Promise<PostResult> {
  const body = JSON.stringify(bodyOf(parts, d));
  const timestamp = Math.floor(parts.now() / 1000);
  const secrets = [openSecret(parts.sealer, d.endpoint_id, d.signing_secret)];
  if (d.previous_signing_secret)
    secrets.push(openSecret(parts.sealer, d.endpoint_id, d.previous_signing_secret));
  return parts.poster.post(
    d.target_url,
    {
      'content-type': 'application/json',
      'user-agent': 'Sealpost-Webhooks/1',
      [SIGNATURE_HEADERS.eventId]: d.uid,
      [SIGNATURE_HEADERS.timestamp]: String(timestamp),
      [SIGNATURE_HEADERS.signature]: signatureHeader(secrets, d.uid, timestamp, body),
    },
    body,
  );
}

/** The payload: the event and the message it is about, read at send time. */
function bodyOf(parts: Parts, d: Dispatch): WebhookBody {
  return {
    event_name: d.event_name,
    payload: {
      id: Number(d.event_id),
      subject: subjectOf(parts, d),
      header_message_id: d.header_message_id ?? null,
      source_tracking_id: d.message_id,
      outbound_queue_id: d.recipient_id === null ? null : String(d.recipient_id),
      time: new Date(Number(d.event_at)).toISOString(),
      from: d.from_addr ?? null,
      to: d.recipient_address ?? recipientOf(d.event_data),
      custom_headers: headersOf(parts, d),
    },
  };
}

/** The message's custom headers; none (and an error logged) when they cannot be opened. */
function headersOf(parts: Parts, d: Dispatch): Record<string, string> {
  try {
    return openCustomHeaders(parts.sealer, d.message_id, d.custom_headers);
  } catch (err) {
    parts.log.error(
      { err, message: d.message_id },
      'webhook: the custom headers could not be opened; left out',
    );
    return {};
  }
}

/** The message's subject; null when its content was removed or cannot be opened (an error logged). */
function subjectOf(parts: Parts, d: Dispatch): string | null {
  if (!d.content) return null;
  try {
    return openContent(parts.sealer, d.message_id, d.content).subject;
  } catch (err) {
    parts.log.error(
      { err, message: d.message_id },
      'webhook: the message content could not be opened; subject left out',
    );
    return null;
  }
}

/**
 * Records an attempt and what follows from it in one transaction, finishing the work row there too when the delivery
 * succeeded (so one commit covers both); logs a disabled endpoint after commit.
 */
async function record(
  parts: Parts,
  d: Dispatch,
  job: JobRow | undefined,
  result: PostResult,
  last: boolean,
): Promise<void> {
  const ok = isSuccess(result);
  const t = parts.now();
  const disabled = await parts.transact(async (trx) => {
    await insertAttempt(trx, {
      delivery_id: d.id,
      endpoint_id: d.endpoint_id,
      attempt: d.attempts + 1,
      status_code: result.statusCode,
      latency_ms: result.latencyMs,
      response_excerpt: result.excerpt,
      error: result.error,
      created_at: t,
    });
    const state = ok ? 'delivered' : last ? 'failed' : 'pending';
    const settled = await settleDelivery(trx, d.id, d.dispatch_seq, {
      state,
      attempted: true,
      error: ok ? null : describe(result),
      now: t,
    });
    if (!settled) return undefined;
    if (state !== 'pending') await releaseNext(trx, d.endpoint_id, d.message_id, t);
    if (ok) {
      await resetStreak(trx, d.endpoint_id, t);
      if (job?.lease_owner) await completeJob(trx, job.id, job.lease_owner, t);
      return undefined;
    }
    return disableIfDue(parts, trx, d.endpoint_id, result, t);
  });
  if (result.refused)
    parts.log.warn(
      { endpoint: d.endpoint_id, delivery: d.id, err: result.error },
      'webhook target address refused',
    );
  if (disabled)
    parts.log.warn(
      { endpoint: d.endpoint_id, reason: disabled },
      'webhook endpoint disabled after a run of failures',
    );
}

/** Counts a failure against the endpoint and disables it when the run is long enough; returns the reason when it did. */
async function disableIfDue(
  parts: Parts,
  trx: Transaction<DB>,
  endpointId: string,
  result: PostResult,
  t: number,
): Promise<string | undefined> {
  const run = await bumpStreak(trx, endpointId, t);
  const { failures, hours } = parts.disable;
  if (failures === 0 || run.streak < failures || t - run.since < hours * 3_600_000) return undefined;
  const reason = `${run.streak} consecutive failed attempts since ${new Date(run.since).toISOString()}; the last: ${describe(result)}`;
  return (await disableEndpoint(trx, endpointId, reason.slice(0, 1000), t)) ? reason : undefined;
}

/** Ends a delivery that cannot be attempted (its endpoint was switched off or disabled) and lets the next one go. */
async function endWithoutAttempt(parts: Parts, d: Dispatch, why: string): Promise<void> {
  const t = parts.now();
  await parts.transact(async (trx) => {
    if (
      await settleDelivery(trx, d.id, d.dispatch_seq, {
        state: 'failed',
        attempted: false,
        error: why,
        now: t,
      })
    )
      await releaseNext(trx, d.endpoint_id, d.message_id, t);
  });
}

function parseJob(data: unknown): WebhookJob {
  const job = data as Partial<WebhookJob> | null;
  if (typeof job?.deliveryId !== 'number' || typeof job.seq !== 'number')
    throw new PermanentJobError('webhook work row without a delivery');
  return { deliveryId: job.deliveryId, seq: job.seq };
}

function recipientOf(eventData: string): string | null {
  try {
    const r = (JSON.parse(eventData) as { recipient?: unknown }).recipient;
    return typeof r === 'string' ? r : null;
  } catch {
    return null;
  }
}
