/** Upgrades of a database that already holds rows: each migration that rewrites data is applied over data written before it. */
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { migrateTo, migrateToLatest } from './migrate.ts';
import { openScratch } from '../test/database.ts';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

const formRow = (id: string, created_at: number, old_form_id: string | null) => ({
  id,
  customer_id: 1,
  title: id,
  form_json: '{"body":[]}',
  form_html: '',
  old_form_id,
  created_at,
  updated_at: created_at,
});

describe('upgrading a database with data', () => {
  it('numbers existing forms in creation order and gives copies the integer number of their source', async () => {
    const open = await openScratch();
    close = open.close;
    const { database } = open;
    await migrateTo(database, '0007_drips');
    const db = database.db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
    await db.insertInto('customers').values({ username: 'old', created_at: 1 }).execute();
    await db
      .insertInto('forms')
      .values([
        formRow('b-second', 2000, null),
        formRow('a-first', 1000, null),
        formRow('c-copy', 3000, 'b-second'),
      ])
      .execute();
    await migrateToLatest(database);
    const rows = await database.db
      .selectFrom('forms')
      .select(['id', 'number', 'old_form_number'])
      .orderBy('created_at')
      .execute();
    const numbers = rows.map((r) => Number(r.number));
    expect(new Set(numbers).size).toBe(3);
    if (database.dialect === 'sqlite') expect(numbers).toEqual([1, 2, 3]);
    expect(Number(rows[2]!.old_form_number)).toBe(numbers[1]);
    expect(rows[0]!.old_form_number).toBeNull();
    const next = await sql<{ n: number }>`select max(number) as n from forms`.execute(database.db);
    expect(Number(next.rows[0]!.n)).toBeGreaterThanOrEqual(3);
  });
});

describe('upgrading marketing rows to UUID ids', () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('gives every existing row a distinct random UUID, and every row written later one too', async () => {
    const open = await openScratch();
    close = open.close;
    const { database } = open;
    await migrateTo(database, '0013_segments');
    const db = database.db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
    await db.insertInto('customers').values({ username: 'old', created_at: 1 }).execute();
    const customer = Number((await db.selectFrom('customers').select('id').executeTakeFirstOrThrow()).id);
    const at = { created_at: 1, updated_at: 1 };
    await db
      .insertInto('subscription_lists')
      .values([
        { customer_id: customer, name: 'All contacts', is_default: 1, ...at },
        { customer_id: customer, name: 'News', is_default: 0, ...at },
      ])
      .execute();
    await db
      .insertInto('subscribers')
      .values(
        ['a', 'b', 'c'].map((n) => ({
          customer_id: customer,
          email: `${n}@x.example`,
          email_key: `${n}@x.example`,
          ...at,
        })),
      )
      .execute();
    await sql`insert into subscription_list_members (list_id, subscriber_id, created_at, updated_at)
      select l.id, s.id, 1, 1 from subscription_lists l cross join subscribers s`.execute(db);
    await migrateToLatest(database);

    const uuids = async (table: string) =>
      (await sql<{ uuid: string }>`select uuid from ${sql.table(table)}`.execute(database.db)).rows.map(
        (r) => r.uuid,
      );
    for (const table of ['subscription_lists', 'subscribers', 'subscription_list_members']) {
      const found = await uuids(table);
      expect(found.length, table).toBeGreaterThan(1);
      for (const u of found) expect(u, table).toMatch(UUID);
      expect(new Set(found).size, table).toBe(found.length);
    }
    // A row written after the upgrade, by a plain insert that names no uuid, gets one from the database.
    await db
      .insertInto('subscribers')
      .values({ customer_id: customer, email: 'd@x.example', email_key: 'd@x.example', ...at })
      .execute();
    const later = await sql<{
      uuid: string;
    }>`select uuid from subscribers where email = 'd@x.example'`.execute(database.db);
    expect(later.rows[0]!.uuid).toMatch(UUID);
    expect(new Set(await uuids('subscribers')).size).toBe(4);
  });
});
