/**
 * The scheduler: periodic tasks (retention, due schedules) that must run in one process of the deployment only.
 * Lifecycle: start() starts the leader election and a tick every `tickMs`; each tick runs, on the leader only, every
 * task whose interval has passed; stop() waits for a running tick and gives up leadership.
 */
import type { Logger } from 'pino';
import type { LeaderElector } from './leader.ts';

/** A periodic task. */
export interface PeriodicTask {
  name: string;
  everyMs: number;
  run(now: number): Promise<void>;
}

/** A running scheduler. */
export interface Scheduler {
  start(): Promise<void>;
  /** Runs every due task once now (when leader); resolves when they finish. */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

/** Creates a scheduler over an elector and a set of tasks. */
export function createScheduler(opts: {
  elector: LeaderElector;
  tasks: PeriodicTask[];
  log: Logger;
  tickMs?: number;
  now?: () => number;
}): Scheduler {
  const now = opts.now ?? Date.now;
  const lastRun = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let stopped = false;

  const runDue = async (): Promise<void> => {
    if (!opts.elector.isLeader()) return;
    for (const task of opts.tasks) {
      const t = now();
      if (t - (lastRun.get(task.name) ?? -Infinity) < task.everyMs) continue;
      lastRun.set(task.name, t);
      try {
        await task.run(t);
      } catch (err) {
        opts.log.error({ err, task: task.name }, 'periodic task failed');
      }
    }
  };
  const tick = (): Promise<void> => (current = current.then(runDue));
  const loop = (): void => {
    if (stopped) return;
    timer = setTimeout(() => void tick().finally(loop), opts.tickMs ?? 1000);
  };

  return {
    async start() {
      await opts.elector.start();
      loop();
    },
    tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
      await opts.elector.stop();
    },
  };
}
