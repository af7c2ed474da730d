/**
 * Submissions keep their respondent's address sealed on its own, beside the sealed data, so that ordering a form's
 * submissions by submitter email opens a few bytes per submission rather than whole responses with their files.
 * Null on submissions stored before (their address is read from the data).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('form_submissions').addColumn('submitter_email', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('form_submissions').dropColumn('submitter_email').execute();
}
