/**
 * The background work of marketing: drip steps and enrolment, campaign expansion, subscriber imports, exports, capture
 * retention. Its delivery lane is a mail kind's (`deliveries/mail-kind.ts`).
 */
import type { BackgroundWork } from '../jobs/jobs.worker.ts';
import { dripQueues } from './drips/drips.engine.ts';
import { dripTasks } from './drips/drips.enroll.ts';
import { expansionQueue, EXPAND_QUEUE } from './campaigns/expand.ts';
import { marketingRetentionTask } from './deliveries/captured.ts';
import { importQueue } from './imports/import.run.ts';
import { EXPORT_QUEUE } from './exports/exports.service.ts';
import { exportQueue } from './exports/exports.queue.ts';
import { confirmQueue } from './optin/optin.service.ts';
import { addRespondentToList } from './subscribers/form-respondents.ts';

/** The step the forms worker is handed: a marketing form's respondent joins the form's list. */
export const respondentHandOver = addRespondentToList;

/** The drip and campaign queues, the drip enrolment task and the retention of captured marketing mail. */
export const marketingWork: BackgroundWork = {
  queues: (ctx) => ({
    ...dripQueues(ctx),
    [EXPAND_QUEUE]: expansionQueue(ctx),
    ...importQueue(ctx),
    [EXPORT_QUEUE]: exportQueue(ctx),
    ...confirmQueue(ctx),
  }),
  tasks: (ctx) => [...dripTasks(ctx), marketingRetentionTask(ctx)],
};
