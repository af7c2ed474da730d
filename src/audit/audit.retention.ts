/** The audit trail's retention task: entries older than SEALPOST_AUDIT_RETENTION_DAYS are removed, and nothing else removes any. */
import type { AppContext } from '../context.ts';
import type { PeriodicTask } from '../jobs/scheduler.ts';
import { purgeAudit } from './audit.service.ts';

/** The periodic task of the scheduler leader. */
export function auditRetentionTask(ctx: AppContext): PeriodicTask {
  return {
    name: 'audit.retention',
    everyMs: 3_600_000,
    run: async (now) => {
      const removed = await purgeAudit(ctx.database.db, ctx.config.auditRetentionDays, now);
      if (removed > 0) ctx.log.info({ removed }, 'audit entries removed by retention');
    },
  };
}
