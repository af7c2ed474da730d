/**
 * The delivery lanes of the worker role: one work-row queue per kind of outbound mail, each over a delivery engine
 * given that kind's store and tracker and a transport of its own (capturing into that kind's capture store).
 * Lifecycle: the worker role builds the lanes once from the kinds the composition root hands in.
 */
import type { AppContext } from '../context.ts';
import type { BackgroundWork } from '../jobs/jobs.worker.ts';
import type { QueueSpec } from '../jobs/worker.ts';
import { createDeliveryEngine, deliveryQueue, type DeliveryQueueOptions } from './engine.ts';
import type { KindLane, MailKind } from './kind.ts';
import type { MxResolver } from './mx.ts';
import { createTransport, type Transport } from './transport.ts';
import { createRenderPool } from './render-pool.ts';
import { sendRateSpacer } from './send-rate.ts';

/** What the delivery lanes may be given besides the context. */
export interface DeliveryOptions {
  /** DNS for the mx transport (tests point domains at loopback); node's resolver by default. */
  resolver?: MxResolver;
  /** Whether API requests share the event loop now (render-pool.ts spreads rendered copies over its turns then). */
  contended?: () => boolean;
}

/** What the lanes are built from: the kinds of a context, and a wrapper around each transport (metrics). */
export interface DeliveryLaneDeps {
  kinds: (ctx: AppContext) => MailKind[];
  transport?: (transport: Transport) => Transport;
}

/** One queue per kind, by its queue name. */
export function kindQueues(
  ctx: AppContext,
  kinds: readonly MailKind[],
  opts: DeliveryOptions & Pick<DeliveryLaneDeps, 'transport'> = {},
): Record<string, QueueSpec> {
  const wrap = opts.transport ?? ((t: Transport) => t);
  const retrySchedule = ctx.config.deliveryRetrySchedule;
  const queues: Record<string, QueueSpec> = {};
  // One set of render threads serves every lane of the process.
  const renders = createRenderPool(ctx.config.renderThreads, { contended: opts.contended });
  for (const kind of kinds) {
    // Each lane has a pool of its own, sized by its concurrency: one kind never waits for the other's connections.
    const transport = wrap(
      createTransport(ctx.config, {
        capture: kind.capture,
        resolver: opts.resolver,
        laneConcurrency: kind.lane.concurrency,
      }),
    );
    const engine = createDeliveryEngine({
      store: kind.store,
      transport,
      tracker: kind.tracker,
      renderer: renders.open(),
      publicUrl: ctx.publicUrl,
      secureLinkTtlHours: ctx.config.secureLinkTtlHours,
      retrySchedule,
      log: ctx.log,
    });
    const { queue, concurrency, contendedConcurrency } = kind.lane;
    queues[queue] = deliveryQueue(
      engine,
      { concurrency, contendedConcurrency, retrySchedule },
      queueOptions(kind.lane),
    );
  }
  ctx.log.info({ transport: ctx.config.transport }, `delivery transport: ${ctx.config.transport}`);
  return queues;
}

/** A lane's policy as the queue's options: the kind's gate, then the spacing of its send rate, before each attempt. */
function queueOptions({ idField, sendRate, checks }: KindLane): DeliveryQueueOptions {
  if (!checks && sendRate <= 0) return { idField };
  const pace = sendRateSpacer(sendRate);
  return {
    idField,
    gate: async (id) => {
      if (checks && !(await checks.gate(id))) return false;
      await pace();
      return true;
    },
    ...(checks && {
      onSkipped: (id: number) => checks.onSkipped(id),
      onFailed: (id: number, error: string) => checks.onFailed(id, error),
    }),
  };
}

/** The delivery lanes as background work. */
export function deliveryWork(deps: DeliveryLaneDeps): BackgroundWork<DeliveryOptions> {
  return {
    queues: (ctx, opts) => kindQueues(ctx, deps.kinds(ctx), { ...opts, transport: deps.transport }),
  };
}
