/**
 * Delivering marketing mail: the store the delivery engine loads marketing deliveries from and records their outcomes
 * into, the capture store, and the checks of the marketing lane. Before each attempt a gate checks the send is not
 * paused (parking the delivery until it resumes) and the subscriber is still reachable (skipping the delivery
 * otherwise). Outcomes are recorded in group commits by outcomes.ts. `mail-kind.ts` hands them to the delivery lanes as the marketing kind.
 */
import { countDeliveryOutcome } from '../../http/pipeline-metrics.ts';
import type { AppContext } from '../../context.ts';
import type { DeliveryItem, DeliveryStore, MessageContent } from '../../delivery/model.ts';
import type { CaptureStore } from '../../delivery/transport.ts';
import { domainSigningKeys } from '../../delivery/dkim-keys.ts';
import { dkimSealContext } from '../../accounts/domains.service.ts';
import { listedAmong } from '../../accounts/suppressions.service.ts';
import { SUPPRESSED_STATUS } from '../../accounts/suppression.ts';
import { pipelineMetrics } from '../../http/pipeline-metrics.ts';
import type { Queryable } from '../../db/types.ts';
import { domainOf } from '../../mail/addresses.ts';
import { envelopeSender } from '../../mail/return-path.ts';
import { loadPersonalisation, TemplateError, type Personalisation } from '../mailings/personalise.ts';
import { renderEmail, type EmailTemplate } from './content.ts';
import {
  deliveryList,
  deliveryTemplate,
  handOver,
  laneReader,
  signingDomain,
  takeOver,
} from './delivery-cache.ts';
import {
  findDeliveryRow,
  findLaneDelivery,
  listOfDelivery,
  moveDelivery,
  replaceMarketingCaptured,
  setDeliverySecureLink,
  subscriberReachable,
  type LaneDelivery,
} from './deliveries.repository.ts';
import { addToSend, finishIfSettled, lockSendState } from './send-progress.repository.ts';
import { outcomeMerger } from './outcomes.ts';
import { recordMerged } from '../../delivery/record.ts';

/**
 * Whether a delivery may be attempted now. A delivery of a paused send is parked (resume queues it again); one of a
 * cancelled send, or to a subscriber who is gone or unsubscribed, is skipped and counts as settled; one to an address
 * on the account's suppression list is skipped as `suppressed`.
 */
export async function gate(ctx: AppContext, id: number): Promise<boolean> {
  return (await clearToSend(ctx, id)) || gateInTransaction(ctx, id);
}

/**
 * The common case, read without a transaction or a lock: the delivery is open, its send running, its subscriber
 * reachable and its address not suppressed. A state read a moment before the attempt is what the transaction gave
 * too, since the attempt comes after its commit; anything else goes to the transaction, which reads again and settles.
 */
async function clearToSend(ctx: AppContext, id: number): Promise<boolean> {
  const reader = laneReader(ctx);
  const d = await findLaneDelivery(reader, id);
  if (!d || d.status === 'delivered' || d.status === 'failed' || d.status === 'skipped') return false;
  if (d.send_id !== null) {
    const state = await lockSendState(reader, ctx.database.dialect, d.send_id, false);
    if (state === 'paused' || state === 'cancelled') return false;
  }
  const listId = await deliveryList(ctx, d);
  if (d.subscriber_id !== null && !(await subscriberReachable(reader, d.subscriber_id, listId))) return false;
  const address = d.email.toLowerCase();
  if ((await listedAmong(ctx, d.customer_id, [address], reader)).get(address)) return false;
  handOver(ctx, d);
  return true;
}

/** The gate's checks in one transaction, settling a delivery that may not be attempted. */
async function gateInTransaction(ctx: AppContext, id: number): Promise<boolean> {
  const { db, dialect } = ctx.database;
  return db.transaction().execute(async (trx) => {
    const d = await findDeliveryRow(trx, id);
    if (!d || d.status === 'delivered' || d.status === 'failed' || d.status === 'skipped') return false;
    const now = Date.now();
    let listId: number | null = null;
    if (d.send_id !== null) {
      const state = await lockSendState(trx, dialect, d.send_id);
      if (state === 'paused') {
        await moveDelivery(trx, id, { status: 'paused', delivery_status: 'paused' }, now);
        return false;
      }
      if (state === 'cancelled') return skip(trx, d, 'skipped: the send was cancelled', now);
    }
    listId = await listOfDelivery(trx, d);
    if (d.subscriber_id !== null && !(await subscriberReachable(trx, d.subscriber_id, listId)))
      return skip(trx, d, 'skipped: the subscriber unsubscribed or was removed', now);
    const address = d.email.toLowerCase();
    const listed = (await listedAmong(ctx, d.customer_id, [address], trx)).get(address);
    if (listed) {
      pipelineMetrics.suppressed.inc({ lane: 'marketing' });
      return skip(trx, d, listed, now, 'skipped', SUPPRESSED_STATUS);
    }
    return true;
  });
}

/** A delivery the engine skipped without settling it (its subscriber vanished between the gate and the attempt). */
export async function settleSkipped(ctx: AppContext, id: number): Promise<void> {
  await ctx.database.db.transaction().execute(async (trx) => {
    const d = await findDeliveryRow(trx, id);
    if (d) await skip(trx, d, 'skipped: the subscriber was removed', Date.now());
  });
}

/** A delivery whose work row failed for good without recording an outcome (an error, not an answer): it fails. */
export async function settleFailed(ctx: AppContext, id: number, error: string): Promise<void> {
  await ctx.database.db.transaction().execute(async (trx) => {
    const d = await findDeliveryRow(trx, id);
    if (d) await skip(trx, d, error, Date.now(), 'failed');
  });
}

/** The email of a delivery, or why it cannot be made (a template that fails to render for this subscriber). */
function rendered(
  template: EmailTemplate | null,
  d: LaneDelivery,
  p: Personalisation | null,
  ctx: AppContext,
): { content: MessageContent | null; contentError?: string } {
  if (!template) return { content: null };
  try {
    return {
      content: renderEmail(template, { id: d.id, email: d.email }, p, {
        publicUrl: ctx.publicUrl,
        key: ctx.keys.tracking,
      }),
    };
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    return { content: null, contentError: `the email could not be rendered: ${err.message}` };
  }
}

/** Ends a delivery that was not sent (skipped, or failed by an error) and counts it as settled for its send. */
async function skip(
  trx: Queryable,
  d: LaneDelivery,
  why: string,
  now: number,
  status: 'skipped' | 'failed' = 'skipped',
  deliveryStatus: string = status,
): Promise<false> {
  if (
    (await moveDelivery(
      trx,
      d.id,
      { status, delivery_status: deliveryStatus, last_response: why.slice(0, 500) },
      now,
    )) &&
    d.send_id !== null &&
    d.subscriber_id !== null
  ) {
    await addToSend(trx, d.send_id, {}, 1, now);
    await finishIfSettled(trx, d.send_id, now);
  }
  return false;
}

/** A marketing delivery as the engine delivers it (also what the secure page shows); undefined when it does not exist. */
export async function loadMarketingItem(ctx: AppContext, id: number): Promise<DeliveryItem | undefined> {
  const reader = laneReader(ctx);
  // The gate of this attempt has just read the row, unless the load is the secure page's.
  const d = takeOver(ctx, id) ?? (await findLaneDelivery(reader, id));
  if (!d) return undefined;
  const final = d.status === 'delivered' || d.status === 'failed' || d.status === 'skipped';
  const template = await deliveryTemplate(ctx, d);
  const personalisation =
    d.subscriber_id === null ? null : ((await loadPersonalisation(reader, d.subscriber_id)) ?? null);
  const domainName = template ? domainOf(template.fromEmail) : '';
  const domain = template ? await signingDomain(ctx, d.customer_id, domainName) : undefined;
  const tracked = d.subscriber_id !== null;
  return {
    recipientId: d.id,
    customerId: d.customer_id,
    address: d.email,
    final: final || (tracked && personalisation === null),
    headerMessageId:
      d.header_message_id ?? `<m${d.id}.${d.created_at.toString(36)}@${domainName || 'localhost'}>`,
    envelopeFrom: envelopeSender(
      ctx.config.bounceDomain,
      ctx.keys.returnPath,
      { kind: 'm', id: d.id },
      template?.fromEmail ?? '',
    ),
    createdAt: Date.now(),
    allowNonTls: false,
    forceSecure: false,
    openTracking: tracked,
    // Links are tracked while the email is rendered (the kind's tracker has no rewriter).
    linkTracking: false,
    ...rendered(template, d, tracked ? personalisation : null, ctx),
    dkim: domain
      ? domainSigningKeys(domain, (sealed, second) =>
          ctx.sealer.openText(sealed, dkimSealContext(domain.id, second)),
        )
      : [],
  } satisfies DeliveryItem;
}

/** Loads marketing deliveries for the engine and records their outcomes (see outcomes.ts). */
export function marketingStore(ctx: AppContext): DeliveryStore {
  const { db } = ctx.database;
  return {
    load: (id) => loadMarketingItem(ctx, id),
    saveSecureLink: (id, tokenHash, expiresAt) =>
      setDeliverySecureLink(db, id, tokenHash, expiresAt, Date.now()),
    record: async (item, outcome, finish) => {
      const recorded = await recordMerged(ctx.committer, outcomeMerger, { item, outcome, finish });
      if (recorded) countDeliveryOutcome('marketing', outcome.status);
      return recorded;
    },
  };
}

/** Captured marketing mail, sealed to its delivery. */
export function captureStore(ctx: AppContext): CaptureStore {
  return {
    save: (req) =>
      ctx.database.db.transaction().execute((trx) =>
        replaceMarketingCaptured(trx, {
          delivery_id: req.ref.recipientId,
          customer_id: req.ref.customerId,
          envelope_from: req.from,
          envelope_to: req.to,
          raw: ctx.sealer.seal(req.raw, marketingCapturedAad(req.ref.recipientId)),
          created_at: Date.now(),
        }),
      ),
  };
}

/** The associated data a captured marketing message is sealed with. */
export const marketingCapturedAad = (deliveryId: number) => `captured:marketing:${deliveryId}`;
