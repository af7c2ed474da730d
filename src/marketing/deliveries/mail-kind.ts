/**
 * Marketing mail as a kind of outbound mail: campaign and drip deliveries, worked on the `marketing.delivery` lane
 * (gated and paced), tracked under `/t/m` with an unsubscribe link of their own, captured into `marketing_captured`,
 * and shown on the secure page rendered again for their subscriber, as they were sent.
 */
import type { AppContext } from '../../context.ts';
import type { MailKind, SecureLookup } from '../../delivery/kind.ts';
import { tokenUrls } from '../../mail/tokens.ts';
import { MARKETING_DELIVERY_QUEUE } from './queue.repository.ts';

export { MARKETING_DELIVERY_QUEUE };
import { findMarketingBySecureTokenHash } from './deliveries.repository.ts';
import {
  captureStore,
  gate,
  loadMarketingItem,
  marketingStore,
  settleFailed,
  settleSkipped,
} from './delivery.ts';
import {
  recordMarketingClick,
  recordMarketingOpen,
  unsubscribeByToken,
  unsubscribeInfo,
} from './engagement.service.ts';

/** Marketing deliveries at once while API requests share the lane's event loop (docs/decisions.md). */
const CONTENDED_CONCURRENCY = 8;

/** The marketing kind over a context. */
export function marketingKind(ctx: AppContext): MailKind {
  return {
    name: 'marketing',
    lane: {
      queue: MARKETING_DELIVERY_QUEUE,
      concurrency: ctx.config.marketingConcurrency,
      // While API requests come in, a few: a campaign fills idle cores, not a busy loop.
      contendedConcurrency: Math.min(CONTENDED_CONCURRENCY, ctx.config.marketingConcurrency),
      idField: 'deliveryId',
      sendRate: ctx.config.marketingSendRate,
      checks: {
        gate: (id) => gate(ctx, id),
        onSkipped: (id) => settleSkipped(ctx, id),
        onFailed: (id, error) => settleFailed(ctx, id, error),
      },
    },
    store: marketingStore(ctx),
    // No link rewriter: links are tracked while the email is rendered, where the template's own links are known.
    tracker: {
      openPixelUrl: (id) => tokenUrls.marketing.open(ctx.publicUrl, ctx.keys.tracking, id),
    },
    capture: captureStore(ctx),
    tracking: {
      prefix: '/t/m',
      tags: ['marketing tracking'],
      open: (segment) => recordMarketingOpen(ctx, segment),
      click: (token) => recordMarketingClick(ctx, token),
      unsubscribe: {
        info: (token) => unsubscribeInfo(ctx, token),
        apply: (token, global) => unsubscribeByToken(ctx, token, global),
      },
    },
    secure: secureLookup(ctx),
  };
}

/** A delivery by its secure link, its email rendered again for its recipient as it was sent. */
function secureLookup(ctx: AppContext): SecureLookup {
  return {
    async find(tokenHash) {
      const row = await findMarketingBySecureTokenHash(ctx.database.db, tokenHash);
      if (!row) return undefined;
      return {
        expiresAt: row.secure_expires_at,
        customerId: Number(row.customer_id),
        target: `campaign_delivery:${row.id}`,
        read: async () => {
          const item = await loadMarketingItem(ctx, row.id);
          if (!item?.content) return null;
          return { content: item.content, address: item.address, createdAt: row.created_at };
        },
      };
    },
  };
}
