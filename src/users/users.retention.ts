/** Housekeeping of console sign-in state: ended sessions, finished throttles and used or expired one-time links. */
import type { AppContext } from '../context.ts';
import type { PeriodicTask } from '../jobs/scheduler.ts';
import { purgeSessions } from './sessions.service.ts';
import { deleteOldThrottles } from './throttles.repository.ts';
import { deleteSpentUserTokens } from './users.repository.ts';

/** The periodic task of the scheduler leader. */
export function consoleHousekeepingTask(ctx: AppContext): PeriodicTask {
  return {
    name: 'console.housekeeping',
    everyMs: 600_000,
    run: async (now) => {
      const db = ctx.database.db;
      await purgeSessions(db, ctx.config, now);
      await deleteOldThrottles(db, now - ctx.config.consoleLockoutMinutes * 60_000);
      await deleteSpentUserTokens(db, now - 86_400_000);
    },
  };
}
