/**
 * Subscribers keep their phone number twice: `phone_number` in E.164 (normalised on every write from now on) and
 * `phone_number_input` as it was typed. Numbers stored before are copied as typed and stay as they were until changed.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('subscribers').addColumn('phone_number_input', 'text').execute();
  await sql`update subscribers set phone_number_input = phone_number where phone_number is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('subscribers').dropColumn('phone_number_input').execute();
}
