/**
 * Vitest global set-up: migrates one template database per dialect the run uses, once, and names it in the
 * environment the test workers inherit; each test then copies it (test/database.ts) instead of migrating.
 */
import { existsSync } from 'node:fs';
import type { Dialect } from '../db/connect.ts';
import { adminQuery, migrateEmptyDatabase, TEMPLATE_ENV } from './database.ts';

/** The dialects of this run, from SEALPOST_TEST_DIALECTS (set by vitest.config.ts). */
function dialects(): Dialect[] {
  return (process.env.SEALPOST_TEST_DIALECTS ?? 'sqlite').split(',') as Dialect[];
}

async function migratedTemplate(dialect: Dialect): Promise<{ name: string; drop(): Promise<void> }> {
  const scratch = await migrateEmptyDatabase(dialect);
  if (scratch.target.dialect === 'sqlite') {
    // Closing checkpoints the write-ahead log into the file; tests copy the file alone, so it must be the whole database.
    if (existsSync(`${scratch.target.file}-wal`))
      throw new Error('the SQLite template kept a write-ahead log');
    return { name: scratch.target.file, drop: scratch.drop };
  }
  const name = new URL(scratch.url).pathname.slice(1);
  // A template cannot be copied while anyone is connected to it; marking it one keeps it from being dropped by mistake.
  await adminQuery(`alter database ${name} is_template true`);
  return {
    name,
    drop: async () => {
      await adminQuery(`alter database ${name} is_template false`);
      await scratch.drop();
    },
  };
}

export default async function setup(): Promise<() => Promise<void>> {
  const made = await Promise.all(dialects().map(async (d) => [d, await migratedTemplate(d)] as const));
  for (const [dialect, template] of made) process.env[TEMPLATE_ENV[dialect]] = template.name;
  return async () => {
    await Promise.all(made.map(([, t]) => t.drop()));
  };
}
