/** Test databases: a fresh SQLite file or a fresh PostgreSQL database per call, dropped afterwards. The dialect comes from SEALPOST_TEST_DB. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect, type Database, type Dialect } from '../db/connect.ts';
import type { DatabaseTarget } from '../config/load.ts';

/** The dialect this test run uses: `SEALPOST_TEST_DB=postgres` or SQLite by default. */
export const TEST_DIALECT: Dialect = process.env.SEALPOST_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** Where PostgreSQL test databases are created (an admin connection to the server). */
export const TEST_PG_ADMIN_URL =
  process.env.SEALPOST_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A throwaway database: its URL (for SEALPOST_DATABASE_URL), its target, and a drop function. */
export interface ScratchDatabase {
  url: string;
  target: DatabaseTarget;
  drop(): Promise<void>;
}

/** Creates an empty database of the given dialect. */
export async function createScratchDatabase(dialect: Dialect = TEST_DIALECT): Promise<ScratchDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-test-'));
    const file = path.join(dir, 'test.db');
    return {
      url: `sqlite://${file}`,
      target: { dialect: 'sqlite', file },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `sealpost_t_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(TEST_PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    target: { dialect: 'postgres', url: url.toString() },
    drop: () => adminQuery(`drop database if exists ${name} with (force)`),
  };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Opens a scratch database (not migrated). */
export async function openScratch(
  dialect: Dialect = TEST_DIALECT,
): Promise<{ scratch: ScratchDatabase; database: Database; close(): Promise<void> }> {
  const scratch = await createScratchDatabase(dialect);
  const database = await connect(scratch.target);
  return {
    scratch,
    database,
    close: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}
