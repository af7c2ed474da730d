/**
 * An interrupted move continues where it stopped: the rows committed before the interruption stay, the next run copies
 * the rest without copying any row twice, and the verification then passes. A row changed in the embedded database
 * after it was copied is caught by the checksum. The test uses both engines itself, so it runs once (in the SQLite run).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sqliteDriver } from '../db/sqlite-driver.ts';
import { createScratchDatabase, TEST_DIALECT, type ScratchDatabase } from '../test/database.ts';
import { createTestApp, testConfig, type TestAccount, type TestApp } from '../test/harness.ts';
import { moveToPostgres, type MoveProgress } from './move-to-postgres.ts';
import { seedEverything } from './move.test-support.ts';
import { runSealpostWith } from '../bin/cli.test-support.ts';

describe.runIf(TEST_DIALECT === 'sqlite')('an interrupted move', () => {
  let t: TestApp;
  let acct: TestAccount;
  let target: ScratchDatabase;
  let masterKey: string;
  const file = () => t.scratch.url.replace(/^sqlite:\/\//, '');

  beforeAll(async () => {
    t = await createTestApp({ dialect: 'sqlite', config: { webhookAllowPrivateTargets: true } });
    acct = await t.createAccount();
    masterKey = t.ctx.config.masterKey!;
    await seedEverything(t, acct);
    await t.app.close();
    await t.ctx.database.close();
  });
  beforeEach(async () => {
    await target?.drop();
    target = await createScratchDatabase('postgres');
  });
  afterAll(async () => {
    await target?.drop();
    await t?.scratch.drop();
  });

  const config = () => testConfig({ databaseUrl: t.scratch.url, masterKey });

  /** Moves until `stopAfter` batches have been committed, then stops as Ctrl-C would. */
  async function interruptedMove(stopAfter: number) {
    const stop = new AbortController();
    let batches = 0;
    const seen: MoveProgress[] = [];
    const report = await moveToPostgres(config(), target.url, {
      batchSize: 2,
      signal: stop.signal,
      onProgress: (p) => {
        seen.push(p);
        if (p.phase === 'copy' && p.done > 0 && ++batches >= stopAfter) stop.abort();
      },
    });
    return { report, seen };
  }

  async function countIn(table: string): Promise<number> {
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    try {
      return Number((await client.query(`select count(*) as n from "${table}"`)).rows[0].n);
    } finally {
      await client.end();
    }
  }

  it('keeps what was copied and continues from there on the next run, copying no row twice', async () => {
    const { report, seen } = await interruptedMove(6);
    expect(report.status).toBe('interrupted');
    const stoppedIn = seen.at(-1)!;
    expect(stoppedIn.done).toBeGreaterThan(0);
    const partial = await countIn(stoppedIn.table);
    expect(partial).toBe(stoppedIn.done);

    const resumed: MoveProgress[] = [];
    const done = await moveToPostgres(config(), target.url, {
      batchSize: 2,
      onProgress: (p) => resumed.push(p),
    });
    expect(done).toMatchObject({ status: 'moved', resumed: true });
    // The table it stopped in continues from the recorded row, not from the start.
    expect(resumed.find((p) => p.phase === 'copy' && p.table === stoppedIn.table)!.done).toBe(partial);
    const sqlite = new (sqliteDriver())(file(), { readonly: true });
    try {
      for (const x of done.tables) {
        const n = (sqlite.prepare(`select count(*) as n from "${x.table}"`).get() as { n: number }).n;
        expect(x.rows, x.table).toBe(n);
        expect(await countIn(x.table), x.table).toBe(n);
      }
    } finally {
      sqlite.close();
    }
  });

  it('is continued by running the command again, which says so', async () => {
    expect((await interruptedMove(3)).report.status).toBe('interrupted');
    const run = await runSealpostWith(
      { SEALPOST_DATABASE_URL: t.scratch.url, SEALPOST_MASTER_KEY: masterKey },
      ['move-to-postgres', '--to', target.url],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^moved \d+ rows in \d+ tables to .* \(continued an earlier run\); row counts and checksums match:/,
    );
    // Without a terminal the progress is plain lines, no bar.
    expect(run.stderr).toMatch(/^copying \d+\/\d+ customers \d+% \d+\/\d+ rows$/m);
    expect(run.stderr).not.toContain('[#');
  });

  it('fails the verification when a row changed after it was copied, naming the table', async () => {
    expect((await interruptedMove(3)).report.status).toBe('interrupted');
    const sqlite = new (sqliteDriver())(file());
    const before = sqlite.prepare('select username from customers order by id limit 1').get() as {
      username: string;
    };
    try {
      sqlite.prepare('update customers set username = ? where username = ?').run('renamed', before.username);
      await expect(moveToPostgres(config(), target.url)).rejects.toThrow(
        /^verification failed \(customers: checksums differ\)/,
      );
    } finally {
      sqlite.prepare('update customers set username = ? where username = ?').run(before.username, 'renamed');
      sqlite.close();
    }
  });

  it('copies a table added after this version, without a primary key, with every kind of value intact', async () => {
    const sqlite = new (sqliteDriver())(file());
    const values: [string | null, Buffer | null][] = [
      ['tab\there, line\nend\r\n, backslash \\ and \\N', Buffer.from([0, 1, 2, 255])],
      ['Grüße, ✓, 日本語, 🙂', null],
      [null, Buffer.alloc(0)],
      ['', Buffer.from('\\x00')],
    ];
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    try {
      sqlite.exec('create table added_later (note text, data blob)');
      const insert = sqlite.prepare('insert into added_later (note, data) values (?, ?)');
      for (const [note, data] of values) insert.run(note, data);
      // The newer version's migration, applied to PostgreSQL as `move-to-postgres` applies migrations.
      await client.query('create table added_later (note text, data bytea)');
      const report = await moveToPostgres(config(), target.url, { batchSize: 3 });
      expect(report.tables.find((x) => x.table === 'added_later')).toMatchObject({ rows: 4 });
      const copied = await client.query('select note, data from added_later');
      expect(copied.rows.map((r: { note: string | null; data: Buffer | null }) => [r.note, r.data])).toEqual(
        expect.arrayContaining(values),
      );
    } finally {
      await client.end();
      sqlite.exec('drop table if exists added_later');
      sqlite.close();
    }
  });

  it('refuses while a running service holds the embedded database, copying nothing', async () => {
    const sqlite = new (sqliteDriver())(file());
    try {
      sqlite
        .prepare('insert into leases (name, owner, lease_until) values (?, ?, ?)')
        .run('scheduler', 'node:1:run', Date.now() + 60_000);
      await expect(moveToPostgres(config(), target.url)).rejects.toThrow(
        /^a running Sealpost holds the embedded database \(its scheduler lease is current\); stop it first, or pass --force$/,
      );
      expect(await countIn('customers').catch(() => 'no table')).toBe('no table');
    } finally {
      sqlite.prepare("delete from leases where name = 'scheduler'").run();
      sqlite.close();
    }
  });
});
