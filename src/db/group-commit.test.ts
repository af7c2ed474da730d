import { sql, type Transaction } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openScratch, TEST_DIALECT } from '../test/database.ts';
import { connect, type Database } from './connect.ts';
import { createGroupCommitter, type GroupCommitter, type Merger } from './group-commit.ts';
import type { DB } from './types.ts';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A scratch database with two tables: notes, and tags that each belong to a note (unique per note). */
async function fresh(): Promise<{ database: Database; observer: Database }> {
  const opened = await openScratch();
  const id = TEST_DIALECT === 'postgres' ? sql`serial primary key` : sql`integer primary key`;
  await sql`create table notes (id ${id}, body text not null unique)`.execute(opened.database.db);
  await sql`create table tags (note text not null, tag text not null, unique (note, tag))`.execute(
    opened.database.db,
  );
  // A second connection of its own: what another process sees once a unit is acknowledged.
  const observer = await connect(opened.scratch.target);
  close = async () => {
    await observer.close();
    await opened.close();
  };
  return { database: opened.database, observer };
}

const bodies = async (db: Database, table: 'notes' | 'tags') =>
  (
    await sql<{ v: string }>`select ${sql.raw(table === 'notes' ? 'body' : 'tag')} as v from ${sql.table(
      table,
    )} order by v`.execute(db.db)
  ).rows.map((r) => r.v);

interface Note {
  body: string;
  tags: string[];
}

/** Writes notes with multi-row statements, and counts its calls and the items of each. */
function noteWriter(): Merger<Note, string> & { calls: number[] } {
  const calls: number[] = [];
  return {
    calls,
    async write(trx: Transaction<DB>, items: Note[]) {
      calls.push(items.length);
      const values = (rows: string[][]) =>
        sql.join(rows.map((r) => sql`(${sql.join(r.map((v) => sql`${v}`))})`));
      await sql`insert into notes (body) values ${values(items.map((n) => [n.body]))}`.execute(trx);
      const tags = items.flatMap((n) => n.tags.map((t) => [n.body, t]));
      if (tags.length > 0) await sql`insert into tags (note, tag) values ${values(tags)}`.execute(trx);
      return items.map((n) => `stored ${n.body}`);
    },
  };
}

/** Merges a note, then counts it from another connection: acknowledged means another process reads it at once. */
async function mergeAndSee(
  committer: GroupCommitter,
  writer: Merger<Note, string>,
  observer: Database,
  note: Note,
): Promise<[string, number]> {
  const out = await committer.merge(writer, note);
  const seen = await sql<{ n: number }>`select count(*) as n from notes where body = ${note.body}`.execute(
    observer.db,
  );
  return [out, Number(seen.rows[0]!.n)];
}

it('writes the items of one merger in a batch with one call, and each is committed when acknowledged', async () => {
  const { database, observer } = await fresh();
  const committer = createGroupCommitter(database.db);
  const writer = noteWriter();
  const results = await Promise.all(
    ['a', 'b', 'c', 'd'].map((body) =>
      mergeAndSee(committer, writer, observer, { body, tags: [`${body}1`, `${body}2`] }),
    ),
  );
  expect(results).toEqual([
    ['stored a', 1],
    ['stored b', 1],
    ['stored c', 1],
    ['stored d', 1],
  ]);
  expect(writer.calls).toEqual([4]);
  expect(await bodies(database, 'tags')).toEqual(['a1', 'a2', 'b1', 'b2', 'c1', 'c2', 'd1', 'd2']);
});

it('runs plain units and merged items of a batch in one transaction, in the order they came', async () => {
  const { database } = await fresh();
  const committer = createGroupCommitter(database.db);
  const writer = noteWriter();
  const order: string[] = [];
  await Promise.all([
    committer.run(async (trx) => {
      order.push('unit 1');
      await sql`insert into notes (body) values ('plain')`.execute(trx);
    }),
    committer.merge(writer, { body: 'x', tags: [] }).then(() => order.push('merged done')),
    committer.run(async (trx) => {
      // The merged items were written before this unit ran, in the same transaction.
      const rows = await sql<{ body: string }>`select body from notes order by body`.execute(trx);
      order.push(`unit 2 sees ${rows.rows.map((r) => r.body).join(',')}`);
    }),
    committer.merge(writer, { body: 'y', tags: [] }),
  ]);
  expect(order).toEqual(['unit 1', 'unit 2 sees plain,x,y', 'merged done']);
  expect(writer.calls).toEqual([2]);
});

it('refuses only the item that fails, writes nothing of it, and commits the others', async () => {
  const { database } = await fresh();
  const committer = createGroupCommitter(database.db);
  const writer = noteWriter();
  await committer.merge(writer, { body: 'taken', tags: [] });
  const outcomes = await Promise.allSettled([
    committer.merge(writer, { body: 'first', tags: ['f'] }),
    // Its note is new, its second tag repeats the first: the tags statement fails after the notes were inserted.
    committer.merge(writer, { body: 'broken', tags: ['dup', 'dup'] }),
    committer.merge(writer, { body: 'last', tags: ['l'] }),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(await bodies(database, 'notes')).toEqual(['first', 'last', 'taken']);
  expect(await bodies(database, 'tags')).toEqual(['f', 'l']);
  // The shared batch failed as a whole, then each item was written alone.
  expect(writer.calls).toEqual([1, 3, 1, 1, 1]);
});

it.runIf(TEST_DIALECT === 'postgres')(
  'runs up to `parallel` batches at once on PostgreSQL, each in its own transaction',
  async () => {
    const { database, observer } = await fresh();
    const committer = createGroupCommitter(database.db, { parallel: 2 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The first batch holds its transaction open until a unit of a second batch has committed.
    const first = committer.run(async (trx) => {
      await sql`insert into notes (body) values ('held')`.execute(trx);
      await held;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await committer.run((trx) => sql`insert into notes (body) values ('beside')`.execute(trx));
    const seen = await sql<{ body: string }>`select body from notes order by body`.execute(observer.db);
    expect(seen.rows.map((r) => r.body)).toEqual(['beside']); // 'held' is not committed yet
    release();
    await first;
    expect(await bodies(observer, 'notes')).toEqual(['beside', 'held']);
  },
);

it('runs one batch at a time by default: a unit waits while a batch runs its units', async () => {
  const { database } = await fresh();
  const committer = createGroupCommitter(database.db);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const order: string[] = [];
  const first = committer.run(async () => {
    await held;
    order.push('first');
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const second = committer.run(async () => void order.push('second'));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(order).toEqual([]);
  release();
  await Promise.all([first, second]);
  expect(order).toEqual(['first', 'second']);
});

/** A note writer that, besides `write`, writes notes without tags with one statement. */
function statementWriter(): ReturnType<typeof noteWriter> & { statements: number[] } {
  const writer = noteWriter();
  const statements: number[] = [];
  return {
    ...writer,
    statements,
    statement(db, items) {
      if (items.some((n) => n.tags.length > 0)) return undefined;
      statements.push(items.length);
      const list = items.map((n) => n.body);
      // A body the statement cannot take (as a value JSON cannot carry would be), though a transaction can.
      const check = items.some((n) => n.body.startsWith('!')) ? sql`1 / 0` : sql`1`;
      return sql`insert into notes (body) select unnest(${list}::text[]) where ${check} = 1`
        .execute(db)
        .then(() => items.map((n) => `stated ${n.body}`));
    },
  };
}

describe.runIf(TEST_DIALECT === 'postgres')('single statements on PostgreSQL', () => {
  it('writes a batch of one merger with its statement alone, committed when acknowledged', async () => {
    const { database, observer } = await fresh();
    const committer = createGroupCommitter(database.db, { statements: true });
    const writer = statementWriter();
    const results = await Promise.all(
      ['a', 'b', 'c'].map((body) => mergeAndSee(committer, writer, observer, { body, tags: [] })),
    );
    expect(results).toEqual([
      ['stated a', 1],
      ['stated b', 1],
      ['stated c', 1],
    ]);
    expect(writer.statements).toEqual([3]);
    expect(writer.calls).toEqual([]);
  });

  it('uses a transaction for a batch the statement declines', async () => {
    const { database } = await fresh();
    const committer = createGroupCommitter(database.db, { statements: true });
    const writer = statementWriter();
    await Promise.all([
      committer.merge(writer, { body: 'x', tags: [] }),
      committer.merge(writer, { body: 'y', tags: ['t'] }),
    ]);
    expect(writer.statements).toEqual([]);
    expect(writer.calls).toEqual([2]);
    expect(await bodies(database, 'tags')).toEqual(['t']);
  });

  it('batches the items of a merger with a statement apart from other units, the longer waiting first', async () => {
    const { database } = await fresh();
    const committer = createGroupCommitter(database.db, { statements: true });
    const writer = statementWriter();
    const plain = noteWriter();
    const order: string[] = [];
    await Promise.all([
      committer.run(async (trx) => {
        await sql`insert into notes (body) values ('unit')`.execute(trx);
        order.push('unit');
      }),
      committer.merge(writer, { body: 'a', tags: [] }).then(() => order.push('stated')),
      committer.merge(plain, { body: 'b', tags: [] }),
      committer.merge(writer, { body: 'c', tags: [] }),
    ]);
    // The unit and the plain merger's item share a transaction; the two items with a statement are one statement.
    expect(writer.statements).toEqual([2]);
    expect(writer.calls).toEqual([]);
    expect(plain.calls).toEqual([1]);
    expect(order).toEqual(['unit', 'stated']);
    expect(await bodies(database, 'notes')).toEqual(['a', 'b', 'c', 'unit']);
  });

  it('refuses only the item whose statement fails: the others are written alone', async () => {
    const { database } = await fresh();
    const committer = createGroupCommitter(database.db, { statements: true });
    const writer = statementWriter();
    await committer.merge(writer, { body: 'taken', tags: [] });
    const outcomes = await Promise.allSettled(
      ['first', 'taken', 'last'].map((body) => committer.merge(writer, { body, tags: [] })),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await bodies(database, 'notes')).toEqual(['first', 'last', 'taken']);
    // The batch's statement failed as a whole; then each item was written alone, in a transaction of its own.
    expect(writer.statements).toEqual([1, 3]);
    expect(writer.calls).toEqual([1, 1, 1]);
  });

  it('writes an item again in a transaction when its statement fails, also when it is alone', async () => {
    const { database } = await fresh();
    const committer = createGroupCommitter(database.db, { statements: true });
    const writer = statementWriter();
    expect(await committer.merge(writer, { body: '!alone', tags: [] })).toBe('stored !alone');
    expect(writer.statements).toEqual([1]);
    expect(writer.calls).toEqual([1]);
    expect(await bodies(database, 'notes')).toEqual(['!alone']);
  });
});
