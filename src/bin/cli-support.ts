/** Shared plumbing of the command line: opening Sealpost for a command, printing results, turning errors into exit codes. */
import type { AppContext } from '../context.ts';
import { ConfigError, loadConfig } from '../config/load.ts';
import { AppError } from '../errors/app-error.ts';
import { createLogger, openContext } from '../runtime.ts';
import { checkMasterKeyOpensData, StartError } from './start-checks.ts';
import { OpsError } from '../ops/ops-error.ts';

/** Runs an administrative action against the configured database and closes it afterwards. */
export async function withContext<T>(
  action: (ctx: AppContext) => Promise<T>,
  opts: { migrate?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  const log = createLogger(config, 'stderr');
  const ctx = await openContext(config, log, opts);
  try {
    if (opts.migrate !== false) await checkMasterKeyOpensData(config, ctx.database.db);
    return await action(ctx);
  } finally {
    await ctx.database.close();
  }
}

/** Prints a result: JSON when asked, else the human text. */
export function output(json: boolean | undefined, value: unknown, human: string): void {
  process.stdout.write(json ? JSON.stringify(value) + '\n' : human.replace(/\n?$/, '\n'));
}

/** Wraps a command action: known errors print one line to stderr and exit 1 (configuration errors exit 2). */
export function action<A extends unknown[]>(
  fn: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      if (err instanceof ConfigError) {
        process.stderr.write(`configuration error: ${err.message}\n`);
        process.exit(2);
      }
      if (err instanceof StartError) {
        process.stderr.write(`cannot start: ${err.message}\n`);
        process.exit(1);
      }
      if (err instanceof AppError || err instanceof OpsError) {
        process.stderr.write(`error: ${err.message}\n`);
        process.exit(1);
      }
      throw err;
    }
  };
}
