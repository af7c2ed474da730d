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
