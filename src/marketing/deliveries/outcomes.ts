/**
 * Recording the outcomes of marketing deliveries. Outcomes arrive one per attempt and are written in group commits
 * (db/group-commit.ts) as items of one merger: each outcome updates its delivery and its subscriber's counters, and
 * the counters of the sends and mailings they belong to are summed over the batch and written once per send and
 * mailing, with each send's completion checked once. During a campaign every outcome of a batch belongs to the same
 * send, so a batch of n outcomes costs three statements per outcome and, in all, one each for the send's counters,
 * the mailing's and (once something settled) the send's completion, and one per worker for the work rows of the
 * outcomes that came with theirs (jobs/worker.ts). Run again alone after a failed batch, an outcome is a batch of one
 * and writes the same rows.
 */
import type { Merger } from '../../db/group-commit.ts';
import type { Queryable } from '../../db/types.ts';
import type { DeliveryItem, RecordedOutcome } from '../../delivery/model.ts';
import type { PendingOutcome } from '../../delivery/record.ts';
import { finishAllIn, type FinishIn } from '../../jobs/finish.ts';
import { isHardBounce, suppressAddress } from '../../accounts/suppressions.service.ts';
import {
  countSubscriberOutcome,
  findOutcomeTarget,
  settleDelivery,
  type SubscriberOutcomeCounts,
} from './outcomes.repository.ts';
import {
  addToMailing,
  addToSend,
  finishIfSettled,
  type CampaignCounter,
} from './send-progress.repository.ts';

type Counters = Partial<Record<CampaignCounter, number>>;

/**
 * Counter increments of sends and mailings gathered over a transaction and written when it is about to commit.
 * Lifecycle: one per transaction; add() for each delivery settled in it, then flush() once, inside it.
 */
class CampaignTally {
  private readonly sends = new Map<number, { counters: Counters; settled: number; at: number }>();
  private readonly mailings = new Map<number, Counters>();

  /** Counts an outcome for its send (when it has one) and mailing; `settled` when it ends the delivery. */
  add(
    sendId: number | null,
    mailingId: number | null,
    counters: Counters,
    settled: boolean,
    at: number,
  ): void {
    if (sendId !== null) {
      const send = this.sends.get(sendId) ?? { counters: {}, settled: 0, at };
      if (mailingId !== null) addInto(send.counters, counters);
      if (settled) send.settled++;
      send.at = Math.max(send.at, at);
      this.sends.set(sendId, send);
    }
    if (mailingId !== null) {
      const mailing = this.mailings.get(mailingId) ?? {};
      addInto(mailing, counters);
      this.mailings.set(mailingId, mailing);
    }
  }

  /**
   * Writes the sums: one statement per send and per mailing, then each send's completion once its count moved. Rows
   * are written in the order of their ids, so two batches committing at once (PostgreSQL) lock them in the same order.
   */
  async flush(trx: Queryable): Promise<void> {
    const sends = [...this.sends].sort(([a], [b]) => a - b);
    for (const [id, send] of sends)
      if (send.settled > 0 || Object.keys(send.counters).length > 0)
        await addToSend(trx, id, send.counters, send.settled, send.at);
    for (const [id, counters] of [...this.mailings].sort(([a], [b]) => a - b))
      await addToMailing(trx, id, counters);
    for (const [id, send] of sends) if (send.settled > 0) await finishIfSettled(trx, id, send.at);
    this.sends.clear();
    this.mailings.clear();
  }
}

function addInto(sum: Counters, add: Counters): void {
  for (const [col, by] of Object.entries(add) as [CampaignCounter, number][]) sum[col] = (sum[col] ?? 0) + by;
}

/**
 * Records a group commit's marketing outcomes; true for each that was recorded (its delivery was not final), whose work
 * row, when it came with one, was ended in the same transaction.
 */
export const outcomeMerger: Merger<PendingOutcome, boolean> = {
  async write(trx, pending) {
    const tally = new CampaignTally();
    const recorded: boolean[] = [];
    const finishes: FinishIn[] = [];
    for (const p of pending) {
      const ok = await recordOutcome(trx, p.item, p.outcome, tally);
      if (ok && p.finish) finishes.push(p.finish);
      recorded.push(ok);
    }
    await tally.flush(trx);
    await finishAllIn(trx, finishes);
    return recorded;
  },
};

const NO_COUNTS: SubscriberOutcomeCounts = { deliveries: 0, delivered: 0, hardBounced: 0, softBounced: 0 };

/** The delivery's new state and its subscriber's counters; the campaign's counters go to `tally`. */
async function recordOutcome(
  trx: Queryable,
  item: DeliveryItem,
  outcome: RecordedOutcome,
  tally: CampaignTally,
): Promise<boolean> {
  const d = await findOutcomeTarget(trx, item.recipientId);
  if (!d) return false;
  const softNow = outcome.status === 'deferred' && d.soft_bounced === 0;
  const settled = await settleDelivery(
    trx,
    d.id,
    {
      status: outcome.status,
      delivery_status: outcome.deliveryStatus,
      attempts: outcome.attempts,
      last_response: outcome.response,
      via: outcome.via,
      tls: outcome.tls === null ? null : outcome.tls ? 1 : 0,
      delivered_at: outcome.status === 'delivered' ? outcome.at : null,
      header_message_id: item.headerMessageId,
      soft_bounced: softNow ? 1 : d.soft_bounced,
    },
    outcome.at,
  );
  if (!settled || d.subscriber_id === null) return settled;
  const counters: Counters = {};
  let counts = NO_COUNTS;
  if (outcome.status === 'delivered') {
    counters.delivered_count = 1;
    counts = { ...NO_COUNTS, deliveries: 1, delivered: 1 };
  } else if (outcome.status === 'failed') {
    if (isHardBounce(outcome.response))
      await suppressAddress(trx, d.customer_id, d.email, 'hard_bounce', outcome.response, null, outcome.at);
    counters.bounced_count = 1;
    counters.hard_bounced_count = 1;
    counts = { ...NO_COUNTS, deliveries: 1, hardBounced: 1 };
  } else if (softNow) {
    counters.soft_bounced_count = 1;
    counts = { ...NO_COUNTS, softBounced: 1 };
  }
  if (counts !== NO_COUNTS) await countSubscriberOutcome(trx, d.subscriber_id, counts);
  tally.add(d.send_id, d.campaign_mailing_id, counters, outcome.status !== 'deferred', outcome.at);
  return true;
}
