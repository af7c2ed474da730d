/**
 * Periodic tasks of the scheduler leader for the audit trail and console sign-in state: audit entries older than
 * SEALPOST_AUDIT_RETENTION_DAYS are removed (nothing else removes any), and ended sessions, finished sign-in
 * throttles and used or expired one-time links are cleared.
 */
import type { BackgroundWork } from '../jobs/jobs.worker.ts';
import { purgeAudit } from '../audit/audit.service.ts';
import { purgeSessions } from './sessions.service.ts';
import { purgeDrafts } from './drafts.service.ts';
import { purgeOldReveals } from './reveals.service.ts';
import { deleteOldThrottles } from './throttles.repository.ts';
import { deleteSpentUserTokens } from './users.repository.ts';

/** The background work of users and the audit trail. */
export const usersWork: BackgroundWork = {
  tasks: (ctx) => [
    {
      name: 'audit.retention',
      everyMs: 3_600_000,
      run: async (now) => {
        const removed = await purgeAudit(ctx.database.db, ctx.config.auditRetentionDays, now);
        if (removed > 0) ctx.log.info({ removed }, 'audit entries removed by retention');
      },
    },
    {
      name: 'console.housekeeping',
      everyMs: 600_000,
      run: async (now) => {
        const db = ctx.database.db;
        await purgeSessions(db, ctx.config, now);
        await purgeDrafts(ctx, now);
        await purgeOldReveals(db, now);
        await deleteOldThrottles(db, now - ctx.config.consoleLockoutMinutes * 60_000);
        await deleteSpentUserTokens(db, now - 86_400_000);
      },
    },
  ],
};
