/**
 * The email side of delivery: the store the delivery engine reads and records through (messages, recipients, events),
 * the capture store, the per-recipient HTML tracking it applies, and the retention task that purges the content of
 * finished messages. `mail-kind.ts` hands them to the delivery lanes as the transactional kind.
 */
import { LRUCache } from 'lru-cache';
import { countDeliveryOutcome } from '../http/pipeline-metrics.ts';
import { isHardBounce, suppressAddress } from '../accounts/suppressions.service.ts';
import type { AppContext } from '../context.ts';
import type { PeriodicTask } from '../jobs/scheduler.ts';
import { finishAllIn, type FinishIn } from '../jobs/finish.ts';
import type { Merger } from '../db/group-commit.ts';
import { recordMerged, type PendingOutcome } from '../delivery/record.ts';
import type { DeliveryItem, DeliveryStore, HtmlTracker, RecordedOutcome } from '../delivery/model.ts';
import type { CaptureStore } from '../delivery/transport.ts';
import { rewriteLinks } from '../mail/links.ts';
import { domainSigningKeys } from '../delivery/dkim-keys.ts';
import { dkimSealContext } from '../accounts/domains.service.ts';
import { tokenUrls } from '../mail/tokens.ts';
import { envelopeSender } from '../mail/return-path.ts';
import { openContent, type StoredContent } from '../mail/content.ts';
import { capturedAad } from './captured.service.ts';
import { pruneIdempotencyKeys } from './messages.repository.ts';
import { appendEvent } from '../webhooks/webhooks.outbox.ts';
import {
  countFinalRecipient,
  findContent,
  findDelivery,
  purgeFinishedContent,
  replaceCaptured,
  setSecureLink,
  settleRecipient,
} from './delivery.repository.ts';
import { IDEMPOTENCY_TTL_MS } from './accepted-writer.ts';
import { pruneFinishedScheduled } from './schedule.repository.ts';

const DAY_MS = 86_400_000;

/**
 * The periodic task that purges content of finished messages past retention, expired idempotency keys, and scheduled
 * messages that were sent, failed or cancelled before the retention.
 */
export function contentRetentionTask(ctx: AppContext): PeriodicTask {
  return {
    name: 'email.retention',
    everyMs: 3_600_000,
    run: async (now) => {
      const db = ctx.database.db;
      const purged = await purgeFinishedContent(db, now - ctx.config.contentRetentionDays * DAY_MS, now);
      const keys = await pruneIdempotencyKeys(db, now - IDEMPOTENCY_TTL_MS);
      const scheduled = await pruneFinishedScheduled(db, now - ctx.config.contentRetentionDays * DAY_MS);
      if (purged.messages + purged.captured + keys + scheduled > 0)
        ctx.log.info({ ...purged, idempotencyKeys: keys, scheduled }, 'message content purged by retention');
    },
  };
}

/** Deliveries read from and recorded into the message tables. */
export function deliveryStore(ctx: AppContext): DeliveryStore {
  const { db, reader } = ctx.database;
  const contents = contentCache(ctx);
  return {
    async load(recipientId) {
      const row = await findDelivery(reader, recipientId);
      if (!row) return undefined;
      const content = row.content_purged ? null : await contents.of(row.message_id);
      return {
        recipientId: row.id,
        reference: row.message_id,
        customerId: row.customer_id,
        address: row.address,
        final: row.status === 'delivered' || row.status === 'failed',
        headerMessageId: row.header_message_id,
        envelopeFrom: envelopeSender(
          ctx.config.bounceDomain,
          ctx.keys.returnPath,
          { kind: 't', id: row.id },
          row.from_addr,
        ),
        createdAt: Number(row.created_at),
        allowNonTls: row.allow_non_tls === 1,
        forceSecure: row.force_secure === 1,
        openTracking: row.open_tracking === 1,
        linkTracking: row.link_tracking === 1,
        content,
        // The pending count includes this recipient, which is not final yet.
        othersPending: Number(row.pending_count) > 1,
        dkim:
          row.domain_id && row.domain_name && row.dkim_selector && row.dkim_private_key
            ? domainSigningKeys(
                {
                  id: row.domain_id,
                  name: row.domain_name,
                  dkim_selector: row.dkim_selector,
                  dkim_private_key: row.dkim_private_key,
                  dkim2_selector: row.dkim2_selector,
                  dkim2_private_key: row.dkim2_private_key,
                },
                (sealed, second) => ctx.sealer.openText(sealed, dkimSealContext(row.domain_id!, second)),
              )
            : [],
      };
    },
    saveSecureLink: (recipientId, tokenHash, expiresAt) =>
      setSecureLink(db, recipientId, tokenHash, expiresAt, Date.now()),
    // Outcomes of concurrent deliveries share commits (the group committer), as accepted messages do.
    record: async (item, outcome, finish) => {
      const recorded = await recordMerged(ctx.committer, outcomeMerger, { item, outcome, finish });
      if (recorded) countDeliveryOutcome('transactional', outcome.status);
      return recorded;
    },
  };
}

/**
 * Opened message content kept for the other recipients of the same message, so a message is read and decrypted once
 * per worker while its recipients are delivered, not once per recipient. Bounded by count and by sealed size; content
 * is never changed once stored, only purged after the message is finished.
 */
function contentCache(ctx: AppContext, maxEntries = 32, maxBytes = 64 * 1024 * 1024) {
  interface Entry {
    content: Promise<StoredContent | null>;
  }
  // Sized by the sealed bytes once read (1 while the read is in flight); content over a quarter of maxBytes is not kept.
  const byMessage = new LRUCache<string, Entry>({
    max: maxEntries,
    maxSize: maxBytes,
    maxEntrySize: Math.floor(maxBytes / 4),
  });
  const drop = (messageId: string, entry: Entry) => {
    if (byMessage.peek(messageId) === entry) byMessage.delete(messageId);
  };
  /** Reads and opens the content; sizes `entry` by it, or lets it go when there is none. */
  async function open(messageId: string, entry: Entry): Promise<StoredContent | null> {
    const sealed = await findContent(ctx.database.reader, messageId);
    if (sealed === null) drop(messageId, entry);
    else if (byMessage.peek(messageId) === entry)
      byMessage.set(messageId, entry, { size: Math.max(1, sealed.length) });
    return sealed === null ? null : openContent(ctx.sealer, messageId, sealed);
  }
  return {
    /** Recipients of one message loaded side by side share one read: the first caller's, even while in flight. */
    of(messageId: string): Promise<StoredContent | null> {
      const hit = byMessage.get(messageId);
      if (hit) return hit.content;
      const entry: Entry = { content: Promise.resolve(null) };
      byMessage.set(messageId, entry, { size: 1 });
      entry.content = open(messageId, entry);
      // A failed read is not kept: the next recipient reads again.
      entry.content.catch(() => drop(messageId, entry));
      return entry.content;
    },
  };
}

/**
 * Records the outcomes of a group commit, each as recordOutcome does, and ends the work rows of those recorded in one
 * statement; true for each that was recorded (and whose work row, when it came with one, was ended with it).
 */
const outcomeMerger: Merger<PendingOutcome, boolean> = {
  async write(trx, pending) {
    const recorded: boolean[] = [];
    const finishes: FinishIn[] = [];
    for (const p of pending) {
      const ok = await recordOutcome(trx, p.item, p.outcome);
      if (ok && p.finish) finishes.push(p.finish);
      recorded.push(ok);
    }
    await finishAllIn(trx, finishes);
    return recorded;
  },
};

/** The state change, the pending count and the event of one outcome; run inside one transaction. */
async function recordOutcome(
  trx: Parameters<typeof settleRecipient>[0],
  item: DeliveryItem,
  outcome: RecordedOutcome,
): Promise<boolean> {
  const final = outcome.status !== 'deferred';
  const settled = await settleRecipient(
    trx,
    item.recipientId,
    {
      status: outcome.status,
      delivery_status: outcome.deliveryStatus,
      delivered_at: outcome.status === 'delivered' ? outcome.at : null,
      attempts: outcome.attempts,
      last_response: outcome.response,
      via: outcome.via,
      tls: outcome.tls === null ? null : outcome.tls ? 1 : 0,
    },
    outcome.at,
  );
  if (!settled) return false;
  const messageId = messageOf(item);
  if (final) await countFinalRecipient(trx, messageId, outcome.at);
  if (outcome.status === 'failed' && isHardBounce(outcome.response))
    await suppressAddress(
      trx,
      item.customerId,
      item.address,
      'hard_bounce',
      outcome.response,
      messageId,
      outcome.at,
    );
  await appendEvent(trx, {
    customer_id: item.customerId,
    message_id: messageId,
    recipient_id: item.recipientId,
    event: outcome.event,
    data: JSON.stringify({
      recipient: item.address,
      status: outcome.deliveryStatus,
      response: outcome.response,
    }),
    created_at: outcome.at,
  });
  return true;
}

/** The capture store: raw messages sealed to their own message and recipient. */
export function captureStore(ctx: AppContext): CaptureStore {
  return {
    save: (req) =>
      ctx.database.db.transaction().execute((trx) =>
        replaceCaptured(trx, {
          customer_id: req.ref.customerId,
          message_id: messageOf(req.ref),
          recipient_id: req.ref.recipientId,
          envelope_from: req.from,
          envelope_to: req.to,
          raw: ctx.sealer.seal(req.raw, capturedAad(messageOf(req.ref), req.ref.recipientId)),
          created_at: Date.now(),
        }),
      ),
  };
}

/** The message of a transactional delivery: the store loads every one with it. */
function messageOf(ref: Pick<DeliveryItem, 'reference'>): string {
  if (ref.reference === undefined) throw new Error('a transactional delivery without its message');
  return ref.reference;
}

/** Click links and the open pixel under this server's public URL, signed with the tracking key. */
export function htmlTracker(ctx: AppContext): HtmlTracker {
  return {
    rewriteLinks: (html, recipientId) =>
      rewriteLinks(html, (position) =>
        tokenUrls.transactional.click(ctx.publicUrl, ctx.keys.tracking, recipientId, position),
      ),
    openPixelUrl: (recipientId) =>
      tokenUrls.transactional.open(ctx.publicUrl, ctx.keys.tracking, recipientId),
  };
}
