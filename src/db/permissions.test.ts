import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.ts';
import { openContext } from '../runtime.ts';

const mode = (file: string) => statSync(file).mode & 0o777;

describe('the embedded database on disk', () => {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'sealpost-perm-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('creates the data directory 0700 and the database, its WAL and the master key 0600 under a permissive umask', async () => {
    const dataDir = path.join(parent, 'data');
    const previous = process.umask(0o022);
    try {
      const ctx = await openContext(
        loadConfig({}, { dataDir, logLevel: 'silent' }),
        pino({ level: 'silent' }),
      );
      await ctx.database.db
        .insertInto('customers')
        .values({ username: 'perm', created_at: Date.now() })
        .execute();
      expect(mode(dataDir)).toBe(0o700);
      expect(mode(path.join(dataDir, 'sealpost.db'))).toBe(0o600);
      expect(mode(path.join(dataDir, 'sealpost.db-wal'))).toBe(0o600);
      expect(mode(path.join(dataDir, 'master.key'))).toBe(0o600);
      await ctx.database.close();
    } finally {
      process.umask(previous);
    }
  });
});
