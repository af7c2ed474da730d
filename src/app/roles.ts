/**
 * The roles a process can run: `api` (HTTP), `worker` (work rows and the scheduler) and `smtp` (SMTP submission). `sealpost start` runs all of
 * them; `--roles` a subset. Lifecycle: startRoles() starts each and returns a stop function that drains them in order.
 */
import os from 'node:os';
import type { AppContext } from '../context.ts';
import { ConfigError } from '../config/load.ts';
import { buildApp } from './app.ts';
import { createWorker } from '../jobs/worker.ts';
import { createLoopPacer } from '../jobs/loop-pacer.ts';
import { createLeaderElector } from '../jobs/leader.ts';
import { createScheduler } from '../jobs/scheduler.ts';
import { queueHandlers, periodicTasks } from './workers.ts';

/** Every role, in start order. */
export const ROLES = ['api', 'worker', 'smtp'] as const;
export type Role = (typeof ROLES)[number];

/** Parses a comma-separated role list. */
export function parseRoles(input: string): Role[] {
  const roles = input
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  if (roles.length === 0) throw new ConfigError(`roles: give at least one role of ${ROLES.join(', ')}`);
  for (const r of roles)
    if (!(ROLES as readonly string[]).includes(r))
      throw new ConfigError(`roles: unknown role "${r}"; roles are ${ROLES.join(', ')}`);
  return [...new Set(roles)] as Role[];
}

/** What a started set of roles exposes. */
export interface RunningRoles {
  /** The HTTP address when the api role runs. */
  httpAddress?: string;
  /** The address of /metrics when the api role does not run and SEALPOST_METRICS_PORT is set. */
  metricsAddress?: string;
  /** Whether delivery is giving API requests the event loop first now (requests came in within the last second); absent
   * when the worker is not paced (docs/operations.md). */
  contended?: () => boolean;
  stop(): Promise<void>;
}

/**
 * Starts the given roles over a context. `pace` (on by default when api and worker share the process) paces work rows
 * by the event loop's lag; off, they start as soon as a slot is free (the benchmark compares both).
 */
export async function startRoles(
  ctx: AppContext,
  roles: Role[],
  opts: { pace?: boolean } = {},
): Promise<RunningRoles> {
  const stops: (() => Promise<void>)[] = [];
  let httpAddress: string | undefined;
  // Opened first, so a port that cannot be bound stops the start before any role has begun work.
  let metricsAddress: string | undefined;
  let closeMetrics: (() => Promise<void>) | undefined;
  if (!roles.includes('api') && ctx.config.metricsPort !== undefined) {
    const { startMetricsServer } = await import('./metrics-server.ts');
    const server = await startMetricsServer(ctx, ctx.config.metricsPort);
    metricsAddress = server.address;
    closeMetrics = () => server.close();
    ctx.log.info({ address: metricsAddress }, 'metrics listening');
  }
  // Sharing the event loop with the API: work rows are paced by the loop's lag (docs/operations.md).
  const pacer =
    roles.includes('worker') && (opts.pace ?? roles.includes('api')) ? createLoopPacer() : undefined;
  if (roles.includes('worker')) {
    const worker = createWorker({
      database: ctx.database,
      log: ctx.log,
      queues: queueHandlers(ctx, { contended: pacer?.contended }),
      pollMs: ctx.config.workerPollMs,
      leaseMs: ctx.config.jobLeaseMs,
      node: ctx.config.nodeName || os.hostname(),
      takeoverMs: ctx.config.nodeTakeoverMs,
      pacer,
    });
    const scheduler = createScheduler({
      elector: createLeaderElector(ctx.database, worker.owner, ctx.log),
      tasks: periodicTasks(ctx),
      log: ctx.log,
    });
    ctx.wake = (queue) => worker.nudge(queue);
    worker.start();
    await scheduler.start();
    stops.push(
      () => scheduler.stop(),
      () => worker.stop(ctx.config.shutdownTimeoutMs).finally(() => pacer?.stop()),
    );
    ctx.log.info({ owner: worker.owner }, 'worker role started');
  }
  if (roles.includes('smtp')) {
    const { startSmtp } = await import('../smtp/smtp.server.ts');
    const { reportHandlers } = await import('./reports.ts');
    const smtp = await startSmtp(ctx, undefined, undefined, reportHandlers(ctx));
    stops.unshift(() => smtp.stop());
  }
  if (roles.includes('api')) {
    const app = await buildApp(ctx, { onRequest: pacer?.noteRequest });
    httpAddress = await app.listen({
      host: ctx.config.httpHost,
      port: ctx.config.httpPort,
    });
    stops.unshift(() => app.close());
    ctx.log.info({ address: httpAddress, publicUrl: ctx.publicUrl }, 'api role listening');
  }
  // Closed after the roles have stopped, so the last counts can still be scraped while work drains.
  if (closeMetrics) stops.push(closeMetrics);
  return {
    httpAddress,
    metricsAddress,
    contended: pacer?.contended,
    async stop() {
      for (const stop of stops) await stop();
    },
  };
}
