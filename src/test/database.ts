/**
 * Test databases: a fresh SQLite file or a fresh PostgreSQL database per call, dropped afterwards. The dialect comes
 * from SEALPOST_TEST_DB. Migrated databases are copies of a template migrated once per run (see global-setup.ts).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect, type Database, type Dialect } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import type { DatabaseTarget } from '../config/load.ts';

/** The dialect this test run uses: `SEALPOST_TEST_DB=postgres` or SQLite by default. */
export const TEST_DIALECT: Dialect = process.env.SEALPOST_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** Where PostgreSQL test databases are created (an admin connection to the server). */
export const TEST_PG_ADMIN_URL =
  process.env.SEALPOST_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Environment variables naming this run's migrated templates: a SQLite file and a PostgreSQL database name. */
export const TEMPLATE_ENV = {
  sqlite: 'SEALPOST_TEST_SQLITE_TEMPLATE',
  postgres: 'SEALPOST_TEST_PG_TEMPLATE',
} as const;

/** A throwaway database: its URL (for SEALPOST_DATABASE_URL), its target, and a drop function. */
export interface ScratchDatabase {
  url: string;
  target: DatabaseTarget;
  drop(): Promise<void>;
}

/** Creates an empty database of the given dialect, or a copy of the database or file named by `template`. */
export async function createScratchDatabase(
  dialect: Dialect = TEST_DIALECT,
  template?: string,
): Promise<ScratchDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-test-'));
    const file = path.join(dir, 'test.db');
    if (template) copyFileSync(template, file);
    return {
      url: `sqlite://${file}`,
      target: { dialect: 'sqlite', file },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `sealpost_t_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}${template ? ` template ${template}` : ''}`);
  const url = pgUrlOf(name);
  return {
    url,
    target: { dialect: 'postgres', url },
    drop: () => adminQuery(`drop database if exists ${name} with (force)`),
  };
}

/**
 * Creates a database with every migration applied: a copy of the run's template when the global set-up made one
 * (migrating takes far longer than copying), else an empty one migrated here.
 */
export async function createMigratedDatabase(dialect: Dialect = TEST_DIALECT): Promise<ScratchDatabase> {
  const template = process.env[TEMPLATE_ENV[dialect]];
  return template ? createScratchDatabase(dialect, template) : migrateEmptyDatabase(dialect);
}

/** Creates an empty database and applies every migration to it. */
export async function migrateEmptyDatabase(dialect: Dialect): Promise<ScratchDatabase> {
  const scratch = await createScratchDatabase(dialect);
  const database = await connect(scratch.target);
  try {
    await migrateToLatest(database);
  } finally {
    await database.close();
  }
  return scratch;
}

/**
 * The URL of a database on the test server. Its sessions commit without waiting for the disk: a test server's crash
 * loses nothing a test needs, and a commit then costs a fifth as much.
 */
export function pgUrlOf(name: string): string {
  const url = new URL(TEST_PG_ADMIN_URL);
  url.pathname = `/${name}`;
  url.searchParams.set('options', '-c synchronous_commit=off');
  return url.toString();
}

/** Runs one statement on the test server's admin connection. */
export async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Opens a scratch database, empty or (`migrated`) with every migration applied. */
export async function openScratch(
  dialect: Dialect = TEST_DIALECT,
  opts: { migrated?: boolean } = {},
): Promise<{ scratch: ScratchDatabase; database: Database; close(): Promise<void> }> {
  const scratch = opts.migrated
    ? await createMigratedDatabase(dialect)
    : await createScratchDatabase(dialect);
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
