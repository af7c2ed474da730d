/**
 * Subscriptions get an internal numeric id, as the reference's subscription record carries one beside the public
 * UUID. Existing memberships are numbered here; new ones get theirs from the database: a serial column on PostgreSQL,
 * an insert trigger on SQLite (whose ALTER TABLE cannot add one), so every insert path, bulk `INSERT ... SELECT`
 * included, is covered. The number also orders subscriptions for keyset reads.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table subscription_list_members add column id bigserial`.execute(db);
  } else {
    await db.schema.alterTable('subscription_list_members').addColumn('id', 'integer').execute();
    await sql`update subscription_list_members set id = rowid`.execute(db);
    await sql`create trigger subscription_list_members_id after insert on subscription_list_members
      for each row when new.id is null begin
        update subscription_list_members set id = (select coalesce(max(id), 0) + 1 from subscription_list_members)
        where rowid = new.rowid;
      end`.execute(db);
  }
  await db.schema
    .createIndex('subscription_list_members_id_idx')
    .on('subscription_list_members')
    .column('id')
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') await sql`drop trigger if exists subscription_list_members_id`.execute(db);
  await db.schema.dropIndex('subscription_list_members_id_idx').execute();
  await db.schema.alterTable('subscription_list_members').dropColumn('id').execute();
}
