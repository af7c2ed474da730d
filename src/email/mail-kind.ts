/**
 * Transactional mail as a kind of outbound mail: messages and their recipients, delivered on the `email.transactional`
 * lane, tracked under `/t`, captured into `captured_messages`, and shown on the secure page from the message's sealed
 * content.
 */
import type { AppContext } from '../context.ts';
import type { MailKind, SecureLookup } from '../delivery/kind.ts';
import { openContent } from '../mail/content.ts';
import { captureStore, deliveryStore, htmlTracker } from './delivery.service.ts';
import { findBySecureTokenHash } from './delivery.repository.ts';
import { TRANSACTIONAL_QUEUE } from './queues.ts';
import { recordClick, recordOpen } from './tracking.service.ts';

/** The transactional kind over a context. */
export function transactionalKind(ctx: AppContext): MailKind {
  return {
    name: 'transactional',
    // Never gated nor paced: a message is sent as soon as it is accepted, at full concurrency even under API load.
    lane: {
      queue: TRANSACTIONAL_QUEUE,
      idField: 'recipientId',
      concurrency: ctx.config.deliveryConcurrency,
      contendedConcurrency: ctx.config.deliveryConcurrency,
      sendRate: 0,
      checks: null,
    },
    store: deliveryStore(ctx),
    tracker: htmlTracker(ctx),
    capture: captureStore(ctx),
    tracking: {
      prefix: '/t',
      tags: ['tracking'],
      open: (segment) => recordOpen(ctx, segment),
      click: (token) => recordClick(ctx, token),
    },
    secure: secureLookup(ctx),
  };
}

/** A recipient by its secure link, its copy opened from the message's content unless retention purged it. */
function secureLookup(ctx: AppContext): SecureLookup {
  return {
    async find(tokenHash) {
      const row = await findBySecureTokenHash(ctx.database.db, tokenHash);
      if (!row) return undefined;
      return {
        expiresAt: row.secure_expires_at,
        customerId: Number(row.customer_id),
        target: `message:${row.message_id}`,
        read: async () =>
          row.content === null || row.content_purged_at !== null
            ? null
            : {
                content: openContent(ctx.sealer, row.message_id, row.content),
                address: row.address,
                createdAt: row.created_at,
              },
      };
    },
  };
}
