/** An account's first steps, each derived from its data (nothing is ticked by hand): what the overview's checklist shows. */
import type { AppContext } from '../context.ts';
import {
  hasFinishedImport,
  hasLiveApiKey,
  hasPublishedForm,
  hasSentMessage,
  hasVerifiedDomain,
} from './getting-started.repository.ts';

/** The first steps, in the order a new account takes them. */
export const FIRST_STEPS = ['domain', 'key', 'test', 'form', 'import'] as const;

/** One of the first steps. */
export type FirstStep = (typeof FIRST_STEPS)[number];

/** Which first steps the account has done. */
export async function firstStepsDone(
  ctx: AppContext,
  customerId: number,
): Promise<Record<FirstStep, boolean>> {
  const db = ctx.database.db;
  const [domain, key, test, form, imported] = await Promise.all([
    hasVerifiedDomain(db, customerId),
    hasLiveApiKey(db, customerId),
    hasSentMessage(db, customerId),
    hasPublishedForm(db, customerId),
    hasFinishedImport(db, customerId),
  ]);
  return { domain, key, test, form, import: imported };
}
