import { rmSync } from 'node:fs';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { openScratch, TEST_DIALECT } from '../test/database.ts';
import { createGroupCommitter } from './group-commit.ts';
import { UnflushedCommitError } from './sqlite-commit.ts';
import type { Database } from './connect.ts';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function freshSqlite(): Promise<{ database: Database; file: string }> {
  const opened = await openScratch('sqlite');
  close = opened.close;
  await sql`create table notes (id integer primary key, body text not null)`.execute(opened.database.db);
  return { database: opened.database, file: (opened.scratch.target as { file: string }).file };
}

const synchronous = async (database: Database) =>
  (await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db)).rows[0]!.synchronous;
const notes = async (database: Database) =>
  (await sql<{ body: string }>`select body from notes order by id`.execute(database.db)).rows.map(
    (r) => r.body,
  );

it.runIf(TEST_DIALECT === 'sqlite')(
  'commits transactions and leaves the connection syncing every statement outside them',
  async () => {
    const { database } = await freshSqlite();
    await database.db
      .transaction()
      .execute((trx) => sql`insert into notes (body) values ('kept')`.execute(trx));
    await expect(
      database.db.transaction().execute(async (trx) => {
        await sql`insert into notes (body) values ('dropped')`.execute(trx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await notes(database)).toEqual(['kept']);
    expect(await synchronous(database)).toBe(2); // FULL
  },
);

it.runIf(TEST_DIALECT === 'sqlite')(
  'reports a commit whose log cannot be flushed, and the group committer does not run its units again',
  async () => {
    const { database, file } = await freshSqlite();
    rmSync(`${file}-wal`); // SQLite keeps writing to the open file; flushing it by name fails
    const committer = createGroupCommitter(database.db);
    const units = ['a', 'b'].map((body) =>
      committer.run((trx) => sql`insert into notes (body) values (${body})`.execute(trx)),
    );
    for (const unit of units) await expect(unit).rejects.toBeInstanceOf(UnflushedCommitError);
    expect(await notes(database)).toEqual(['a', 'b']);
  },
);

it.runIf(TEST_DIALECT === 'sqlite')(
  'runs bookkeeping writes without a sync of their own, commits them, and restores FULL after, also after a failure',
  async () => {
    const { database } = await freshSqlite();
    const during = await database.unsynced(async (db) => {
      await sql`insert into notes (body) values ('claimed')`.execute(db);
      return (await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]!.synchronous;
    });
    expect(during).toBe(1); // NORMAL: the commit writes the log without waiting for the disk
    expect(await synchronous(database)).toBe(2);
    await expect(
      database.unsynced(async (db) => {
        await sql`insert into notes (body) values ('also')`.execute(db);
        throw new Error('after the write');
      }),
    ).rejects.toThrow('after the write');
    expect(await synchronous(database)).toBe(2);
    // Autocommit statements: both are committed, and another connection reads them.
    const read = await sql<{ body: string }>`select body from notes order by id`.execute(database.reader);
    expect(read.rows.map((r) => r.body)).toEqual(['claimed', 'also']);
    // The next transaction's flush carries them to disk with its own commit.
    await database.db
      .transaction()
      .execute((trx) => sql`insert into notes (body) values ('synced')`.execute(trx));
    expect(await notes(database)).toEqual(['claimed', 'also', 'synced']);
  },
);
