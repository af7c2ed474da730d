/**
 * Marketing mail as a kind of outbound mail: campaign and drip deliveries, worked on the `marketing.delivery` lane
 * (gated and paced), tracked under `/t/m` with an unsubscribe link of their own, captured into `marketing_captured`,
 * and shown on the secure page rendered again for their subscriber, as they were sent.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../../context.ts';
import type { MailKind, SecureLookup } from '../../delivery/kind.ts';
import { marketingUrls } from './tokens.ts';
import { MARKETING_DELIVERY_QUEUE } from './queue.repository.ts';
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
  const pace = pacer(ctx.config.marketingSendRate);
  return {
    name: 'marketing',
    lane: {
      queue: MARKETING_DELIVERY_QUEUE,
      concurrency: ctx.config.marketingConcurrency,
      // While API requests come in, a few: a campaign fills idle cores, not a busy loop.
      contendedConcurrency: Math.min(CONTENDED_CONCURRENCY, ctx.config.marketingConcurrency),
      idField: 'deliveryId',
      gate: async (id) => {
        if (!(await gate(ctx, id))) return false;
        await pace();
        return true;
      },
      onSkipped: (id) => settleSkipped(ctx, id),
      onFailed: (id, error) => settleFailed(ctx, id, error),
    },
    store: marketingStore(ctx),
    // Links are rewritten while the email is rendered, where the template's own links are known.
    tracker: {
      rewriteLinks: (html) => html,
      openPixelUrl: (id) => marketingUrls.open(ctx.publicUrl, ctx.keys.tracking, id),
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

/** Spaces calls so that at most `perSecond` pass each second (0: no limit). */
function pacer(perSecond: number): () => Promise<void> {
  if (perSecond <= 0) return async () => undefined;
  const gap = 1000 / perSecond;
  let next = 0;
  return async () => {
    const now = Date.now();
    const at = Math.max(now, next);
    next = at + gap;
    if (at > now) await sleep(at - now);
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
        read: async () => {
          const item = await loadMarketingItem(ctx, row.id);
          if (!item?.content) return null;
          return { content: item.content, address: item.address, createdAt: row.created_at };
        },
      };
    },
  };
}
