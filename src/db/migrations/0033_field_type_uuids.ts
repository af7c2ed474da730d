/**
 * Public UUIDs of subscriber custom field types, which clients key on UUIDs like subscribers and dynamic lists; the
 * integer key stays for joins and is still accepted on input.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';
import { addPublicUuid, dropPublicUuid } from '../uuid-sql.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await addPublicUuid(db, dialect, 'subscriber_custom_field_types');
}

export async function down(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await dropPublicUuid(db, dialect, 'subscriber_custom_field_types');
}
