/**
 * The copy itself: keyset batches read from SQLite and written to PostgreSQL, each batch committed together with the
 * table's progress row, so an interrupted move continues after its last committed batch and never copies a row twice.
 */
import type SQLite from 'better-sqlite3';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { ident, PROGRESS_TABLE, type TableSpec } from './schema.ts';

/** One table's recorded progress. */
export interface TableProgress {
  rows: number;
  /** The key of the last copied row (text forms), or null before the first batch. */
  lastKey: string[] | null;
  copied: boolean;
}

/** Whether a move into this target was begun (and not yet finished). */
export async function moveInProgress(target: pg.Client): Promise<boolean> {
  const r = await target.query<{ present: string }>(`select (to_regclass($1) is not null)::text as present`, [
    PROGRESS_TABLE,
  ]);
  return r.rows[0]?.present === 'true';
}

/** Creates the progress record for a move that begins now. */
export async function beginProgress(target: pg.Client): Promise<void> {
  await target.query(
    `create table ${PROGRESS_TABLE} (table_name text primary key, rows bigint not null,
       last_key text, copied boolean not null default false)`,
  );
}

/** Drops the progress record of a finished, verified move. */
export async function endProgress(target: pg.Client): Promise<void> {
  await target.query(`drop table if exists ${PROGRESS_TABLE}`);
}

/** Each table's progress, by name. */
export async function readProgress(target: pg.Client): Promise<Map<string, TableProgress>> {
  const r = await target.query<{ table_name: string; rows: string; last_key: string | null; copied: string }>(
    `select table_name, rows, last_key, copied::text as copied from ${PROGRESS_TABLE}`,
  );
  return new Map(
    r.rows.map((x) => [
      x.table_name,
      {
        rows: Number(x.rows),
        lastKey: x.last_key === null ? null : (JSON.parse(x.last_key) as string[]),
        copied: x.copied === 'true',
      },
    ]),
  );
}

/** Marks a table as fully copied. */
export async function markCopied(target: pg.Client, table: string, rows: number): Promise<void> {
  await target.query(
    `insert into ${PROGRESS_TABLE} (table_name, rows, copied) values ($1, $2, true)
       on conflict (table_name) do update set copied = true, rows = excluded.rows`,
    [table, rows],
  );
}

/** Tables of the target that already hold rows (a move starts only into an empty database). */
export async function nonEmptyTables(target: pg.Client, specs: TableSpec[]): Promise<string[]> {
  const out: string[] = [];
  for (const s of specs) {
    const r = await target.query(`select 1 from ${ident(s.name)} limit 1`);
    if (r.rowCount) out.push(s.name);
  }
  return out;
}

/** Rows in a table of the embedded database. */
export function sourceCount(source: SQLite.Database, spec: TableSpec): number {
  const row = source.prepare(`select count(*) as n from ${ident(spec.name)}`).get() as { n: number };
  return Number(row.n);
}

/** Rows in a table of the target. */
export async function targetCount(target: pg.Client, spec: TableSpec): Promise<number> {
  const r = await target.query<{ n: string }>(`select count(*) as n from ${ident(spec.name)}`);
  return Number(r.rows[0]?.n);
}

/** A statement that reads the next batch after a key (or the first batch), key columns last. */
function batchReader(source: SQLite.Database, spec: TableSpec, after: boolean): SQLite.Statement {
  const keys = spec.key.map(ident);
  const cols = [...spec.columns.map(ident), ...keys.map((k, i) => `${k} as __k${i}`)].join(', ');
  const where = after ? `where (${keys.join(', ')}) > (${keys.map(() => '?').join(', ')})` : '';
  const text = `select ${cols} from ${ident(spec.name)} ${where} order by ${keys.join(', ')} limit ?`;
  return source.prepare(text).raw(true).safeIntegers(true);
}

/** A value in COPY's text format: `\N` for NULL, integers in decimal, bytes as bytea hex, special characters escaped. */
function copyText(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'bigint' || typeof v === 'number') return String(v);
  if (Buffer.isBuffer(v)) return `\\\\x${v.toString('hex')}`;
  return String(v).replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c]!);
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Writes rows into a table through COPY FROM STDIN (text format), on the connection's open transaction. */
async function copyRows(target: pg.Client, statement: string, rows: unknown[][], n: number): Promise<void> {
  const lines = new Array<string>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    let line = copyText(row[0]);
    for (let c = 1; c < n; c++) line += '\t' + copyText(row[c]);
    lines[r] = line;
  }
  const stream = target.query(copyFrom(statement));
  await pipeline(Readable.from([lines.join('\n') + '\n']), stream);
}

/**
 * Copies one table from its recorded position to its end in batches of `batchSize`. Each batch and the new position
 * commit in one transaction. `onBatch` is told the rows copied so far; returning false stops after that batch.
 */
export async function copyTable(
  source: SQLite.Database,
  target: pg.Client,
  spec: TableSpec,
  from: TableProgress | undefined,
  batchSize: number,
  onBatch: (rowsSoFar: number) => boolean,
): Promise<{ rows: number; finished: boolean }> {
  let rows = from?.rows ?? 0;
  let lastKey = from?.lastKey ?? null;
  const first = batchReader(source, spec, false);
  const next = batchReader(source, spec, true);
  const n = spec.columns.length;
  const statement = `copy ${ident(spec.name)} (${spec.columns.map(ident).join(', ')}) from stdin`;
  for (;;) {
    const params = lastKey ? lastKey.map((k, i) => (spec.keyIsInteger[i] ? BigInt(k) : k)) : [];
    const batch = (lastKey ? next : first).all(...params, batchSize) as unknown[][];
    if (batch.length === 0) return { rows, finished: true };
    const last = batch[batch.length - 1]!;
    lastKey = spec.key.map((_, i) => String(last[n + i]));
    rows += batch.length;
    await target.query('begin');
    try {
      await copyRows(target, statement, batch, n);
      await target.query(
        `insert into ${PROGRESS_TABLE} (table_name, rows, last_key) values ($1, $2, $3)
           on conflict (table_name) do update set rows = excluded.rows, last_key = excluded.last_key`,
        [spec.name, rows, JSON.stringify(lastKey)],
      );
      await target.query('commit');
    } catch (err) {
      await target.query('rollback').catch(() => undefined);
      throw err;
    }
    const more = batch.length === batchSize;
    if (!onBatch(rows) && more) return { rows, finished: false };
    if (!more) return { rows, finished: true };
  }
}

/** Sets each identity or serial counter of a table past the largest copied value, so new rows get new ids. */
export async function advanceCounters(target: pg.Client, spec: TableSpec): Promise<void> {
  for (const col of spec.counters)
    await target.query(
      `select setval(pg_get_serial_sequence($1, $2), coalesce(max(${ident(col)}), 0) + 1, false)
         from ${ident(spec.name)}`,
      [ident(spec.name), col],
    );
}
