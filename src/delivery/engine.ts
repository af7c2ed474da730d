/**
 * The delivery engine: delivers one recipient of one message per call. It loads the delivery, skips it when an
 * earlier attempt already settled it, sends the message (or, under the TLS policy, a secure notification), judges the
 * answer, and records the outcome with its event in one transaction.
 * Lifecycle: createDeliveryEngine() once per worker; deliver() per delivery work row; close() when the worker stops.
 * The engine imports no feature: its store, tracker and transport are handed in.
 */
import type { Logger } from 'pino';
import type { FinishIn } from '../jobs/finish.ts';
import type { QueueSpec } from '../jobs/worker.ts';
import { PermanentJobError } from '../jobs/retry.ts';
import type { DeliveryItem, DeliveryStore, HtmlTracker, MessageContent, RecordedOutcome } from './model.ts';
import type { Transport } from './transport.ts';
import type { SendOutcome } from './smtp-client.ts';
import { composeMessage, composeNotification } from './compose.ts';
import type { Renderer } from './render-pool.ts';
import { issueSecureLink, notificationMail, type NotificationReason } from './notification.ts';
import { judge } from './outcome.ts';

/** What the engine is built from. */
export interface DeliveryDeps {
  store: DeliveryStore;
  transport: Transport;
  tracker: HtmlTracker;
  /** Renders and signs each copy (see render-pool.ts); closed with the engine. */
  renderer: Renderer;
  /** Base URL of secure links. */
  publicUrl: string;
  secureLinkTtlHours: number;
  /** Waits between attempts; one attempt more than it has entries. */
  retrySchedule: readonly number[];
  log: Logger;
  now?: () => number;
}

/** How one call ended. */
export type DeliveryResult =
  | { kind: 'skipped' }
  | { kind: 'recorded'; outcome: RecordedOutcome }
  /** Another attempt recorded an outcome first; this one's was dropped. */
  | { kind: 'superseded' };

/** A running engine. */
export interface DeliveryEngine {
  /**
   * Delivers the recipient `recipientId`; `attempt` counts from 1. `finishIn` ends the delivery's work row in the
   * transaction that records a delivered outcome, so both are one commit.
   */
  deliver(recipientId: number, attempt: number, finishIn?: FinishIn): Promise<DeliveryResult>;
  close(): Promise<void>;
}

interface Sent {
  outcome: SendOutcome;
  secure: boolean;
}

/** The engine's parts with its clock settled. */
type Parts = DeliveryDeps & { now: () => number };

/** Creates an engine over its parts. */
export function createDeliveryEngine(deps: DeliveryDeps): DeliveryEngine {
  const parts: Parts = { ...deps, now: deps.now ?? Date.now };

  async function deliver(recipientId: number, attempt: number, finishIn?: FinishIn): Promise<DeliveryResult> {
    const item = await parts.store.load(recipientId);
    if (!item || item.final) return { kind: 'skipped' };
    const sent = await sendUnderTlsPolicy(parts, item);
    const outcome = judge(
      { ...sent, transport: parts.transport.name, number: attempt, at: parts.now() },
      parts.retrySchedule,
    );
    const recorded = await parts.store.record(
      item,
      outcome,
      outcome.status === 'delivered' ? finishIn : undefined,
    );
    logOutcome(parts.log, item, outcome, recorded);
    return recorded ? { kind: 'recorded', outcome } : { kind: 'superseded' };
  }

  return {
    deliver,
    close: async () => {
      await parts.renderer.close();
      await parts.transport.close();
    },
  };
}

/** TLS is required unless the message allows clear text; without it, or when the sender asks, a notification goes instead. */
async function sendUnderTlsPolicy(parts: Parts, item: DeliveryItem): Promise<Sent> {
  const content = item.content;
  if (!content)
    return {
      outcome: {
        result: 'permanent',
        response: item.contentError ?? 'the message content was purged before delivery',
        tls: null,
      },
      secure: false,
    };
  if (item.forceSecure) return sendNotification(parts, item, content, 'sender-requested');
  const raw = await composeMessage(item, content, parts.tracker, parts.renderer);
  const outcome = await parts.transport.send({
    from: item.envelopeFrom,
    to: item.address,
    raw,
    requireTls: !item.allowNonTls,
    ref: item,
  });
  if (outcome.result === 'tls-unavailable') return sendNotification(parts, item, content, 'tls-unavailable');
  return { outcome, secure: false };
}

/** Issues a secure link, stores its hash, and sends the notification, which may go without TLS as it holds no content. */
async function sendNotification(
  parts: Parts,
  item: DeliveryItem,
  content: MessageContent,
  reason: NotificationReason,
): Promise<Sent> {
  const link = issueSecureLink(parts.publicUrl, parts.secureLinkTtlHours, parts.now());
  await parts.store.saveSecureLink(item.recipientId, link.tokenHash, link.expiresAt);
  const raw = await composeNotification(item, notificationMail(content, link, reason), parts.renderer);
  const outcome = await parts.transport.send({
    from: item.envelopeFrom,
    to: item.address,
    raw,
    requireTls: false,
    ref: item,
  });
  return { outcome, secure: true };
}

/** Logs how a delivery ended: delivered, deferred, failed, or dropped because another attempt settled it first. */
function logOutcome(log: Logger, item: DeliveryItem, outcome: RecordedOutcome, recorded: boolean): void {
  const fields = {
    message: item.reference,
    recipient: item.recipientId,
    status: outcome.deliveryStatus,
    via: outcome.via,
    tls: outcome.tls,
    attempts: outcome.attempts,
    response: outcome.response,
  };
  if (!recorded) log.warn(fields, 'delivery outcome dropped: another attempt settled this recipient first');
  else if (outcome.status === 'delivered') log.info(fields, 'delivered');
  else log.warn(fields, outcome.status === 'failed' ? 'delivery failed' : 'delivery deferred');
}

/** Lane settings of a delivery queue. */
export interface LaneSettings {
  concurrency: number;
  /** Deliveries at once while API requests share the loop; `concurrency` when not given. */
  contendedConcurrency?: number;
  retrySchedule: readonly number[];
}

/** How a queue finds the delivery of a work row, and what it checks before each attempt. */
export interface DeliveryQueueOptions {
  /** The payload field holding the delivery id; `recipientId` by default. */
  idField?: string;
  /** Runs before every attempt; false drops the attempt (the work row finishes without sending). */
  gate?: (id: number) => Promise<boolean>;
  /** Runs when the engine skipped the delivery (gone, or already final), so the caller can settle what it keeps. */
  onSkipped?: (id: number) => Promise<void>;
  /** Runs when the work row failed for good, also from errors that recorded no outcome. */
  onFailed?: (id: number, error: string) => Promise<void>;
}

/**
 * A work-row queue over the engine. The engine decides the last attempt itself; the row follows: a temporary outcome
 * is thrown so the row is retried on the same schedule, a permanent one fails the row at once.
 */
export function deliveryQueue(
  engine: DeliveryEngine,
  lane: LaneSettings,
  opts: DeliveryQueueOptions = {},
): QueueSpec {
  const field = opts.idField ?? 'recipientId';
  const idOf = (data: unknown) => (data as Record<string, unknown> | null)?.[field];
  const onFailed = opts.onFailed;
  return {
    concurrency: lane.concurrency,
    contendedConcurrency: lane.contendedConcurrency,
    retrySchedule: lane.retrySchedule,
    ...(onFailed && {
      onFailed: async (job, error) => {
        const id = idOf(job.data);
        if (typeof id === 'number') await onFailed(id, error);
      },
    }),
    handler: async (job, _pace, finishIn) => {
      const id = idOf(job.data);
      if (typeof id !== 'number') throw new PermanentJobError(`delivery work row without a ${field}`);
      if (opts.gate && !(await opts.gate(id))) return;
      const result = await engine.deliver(id, job.attempts, finishIn);
      if (result.kind === 'skipped') await opts.onSkipped?.(id);
      if (result.kind !== 'recorded') return;
      if (result.outcome.status === 'deferred') throw new Error(result.outcome.response);
      if (result.outcome.status === 'failed') throw new PermanentJobError(result.outcome.response);
    },
  };
}
