import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openScratch, TEST_DIALECT } from '../test/database.ts';
import type { Database } from './connect.ts';

let database: Database;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ database, close } = await openScratch(undefined, { migrated: true }));
});
afterAll(() => close());

it.runIf(TEST_DIALECT === 'postgres')(
  'stores sealed message content without trying to compress it',
  async () => {
    const { rows } = await sql<{ attstorage: string }>`select attstorage from pg_attribute
    where attrelid = 'messages'::regclass and attname = 'content'`.execute(database.db);
    expect(rows).toEqual([{ attstorage: 'e' }]);
  },
);
