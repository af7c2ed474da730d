/**
 * Pacing of background work that shares its event loop with the API (`sealpost start` runs every role in one process).
 * A timer measures how late the loop turns (its lag: how long work held it between two turns); before each work row
 * starts, the worker yields one turn of the loop, so HTTP requests already waiting go first, and while the lag is above
 * the budget it waits before starting more, so a backlog of delivery cannot crowd out another account's requests.
 * Each work row is then one slice: one recipient's load, compose, sign, send and record, which yield at every await.
 * A work row that runs long in steps (expanding a send) paces itself between steps through the worker's `pace`.
 * While API requests are coming in (one arrived within the last second: `noteRequest`, `contended`), the budget is
 * halved, a queue with a `contendedConcurrency` (the marketing lane) runs fewer rows at once (worker.ts), and the
 * delivery lanes hand rendered copies back to the loop a few per turn (render-pool.ts), so a request waits behind
 * less background work at each step it takes; with no requests, background work runs at full speed.
 * Lifecycle: createLoopPacer() when the roles start; pace() before each work row; stop() when the worker stops.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

/** The pacer a worker consults before each work row. */
export interface LoopPacer {
  /** Resolves once pending I/O has had a turn and the loop's lag is within budget (or `maxWaitMs` passed). */
  pace(maxWaitMs?: number): Promise<void>;
  /** The loop's recent lag in milliseconds. */
  lagMs(): number;
  /** Records that an API request arrived. */
  noteRequest(): void;
  /** Whether an API request arrived within the last `contendedMs`. */
  contended(): boolean;
  stop(): void;
}

/**
 * Options of a pacer: the lag budget (and the lower one while requests come in), how long after a request the loop
 * counts as contended, how often the lag is sampled, and the longest one pace() waits.
 */
export interface LoopPacerOptions {
  budgetMs?: number;
  contendedBudgetMs?: number;
  contendedMs?: number;
  sampleMs?: number;
  maxWaitMs?: number;
}

export function createLoopPacer(opts: LoopPacerOptions = {}): LoopPacer {
  const budgetMs = opts.budgetMs ?? 20;
  const contendedBudgetMs = opts.contendedBudgetMs ?? 10;
  const contendedMs = opts.contendedMs ?? 1000;
  const sampleMs = opts.sampleMs ?? 10;
  const maxWaitMs = opts.maxWaitMs ?? 250;
  // The lag decays by half each sample without a new late turn, so one long turn throttles briefly, not for long.
  let lag = 0;
  let expected = performance.now() + sampleMs;
  const timer = setInterval(() => {
    const t = performance.now();
    lag = Math.max(t - expected, lag / 2);
    expected = t + sampleMs;
  }, sampleMs);
  timer.unref();
  // A sample overdue now means the loop is held at this moment (by work that ran since the last turn of the timers).
  const current = () => Math.max(lag, performance.now() - expected);
  let lastRequest = -Infinity;
  const contended = () => performance.now() - lastRequest < contendedMs;
  return {
    async pace(wait = maxWaitMs) {
      await nextTurn();
      const until = performance.now() + wait;
      while (current() > (contended() ? contendedBudgetMs : budgetMs) && performance.now() < until)
        await sleep(sampleMs);
    },
    lagMs: current,
    noteRequest: () => {
      lastRequest = performance.now();
    },
    contended,
    stop: () => clearInterval(timer),
  };
}
