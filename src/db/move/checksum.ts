/**
 * Per-table checksums, computed the same way on both sides: every row in a canonical text form (each value as text,
 * integers in decimal, bytes as `\x` and hex, NULL kept apart from the text "null"), hashed with SHA-256; the table's
 * checksum is the sum of the rows' hashes modulo 2^128. A sum does not depend on the order rows are read in, which
 * differs between the engines for text keys; with a primary key no row can appear twice, so a lost, added or changed
 * row changes the sum.
 */
import { createHash } from 'node:crypto';
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import { ident, type TableSpec } from './schema.ts';

const MOD = 1n << 128n;

/** A table's row count and checksum (hex). */
export interface TableSum {
  rows: number;
  checksum: string;
}

function canonical(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) return `\\x${v.toString('hex')}`;
  return String(v);
}

class Summer {
  private sum = 0n;
  rows = 0;
  add(values: unknown[]): void {
    const digest = createHash('sha256')
      .update(JSON.stringify(values.map(canonical)))
      .digest();
    this.sum = (this.sum + BigInt(`0x${digest.subarray(0, 16).toString('hex')}`)) % MOD;
    this.rows++;
  }
  result(): TableSum {
    return { rows: this.rows, checksum: this.sum.toString(16).padStart(32, '0') };
  }
}

/** The checksum of a table of the embedded database. */
export function sourceChecksum(source: SQLite.Database, spec: TableSpec): TableSum {
  const summer = new Summer();
  const stmt = source
    .prepare(`select ${spec.columns.map(ident).join(', ')} from ${ident(spec.name)}`)
    .raw(true)
    .safeIntegers(true);
  for (const row of stmt.iterate() as Iterable<unknown[]>) summer.add(row);
  return summer.result();
}

/**
 * The checksum of the same table in PostgreSQL, read in key order in pages of `pageSize`. The client must return every
 * value as its text form (see `textClient`).
 */
export async function targetChecksum(
  target: pg.Client,
  spec: TableSpec,
  pageSize = 10_000,
): Promise<TableSum> {
  const summer = new Summer();
  const cols = spec.columns.map(ident).join(', ');
  if (spec.key[0] === 'rowid') {
    const r = await target.query({ text: `select ${cols} from ${ident(spec.name)}`, rowMode: 'array' });
    for (const row of r.rows as unknown[][]) summer.add(row);
    return summer.result();
  }
  const keys = spec.key.map(ident).join(', ');
  const keyIdx = spec.key.map((k) => spec.columns.indexOf(k));
  let last: unknown[] | null = null;
  for (;;) {
    const where = last ? `where (${keys}) > (${spec.key.map((_, i) => `$${i + 1}`).join(', ')})` : '';
    const r = await target.query({
      text: `select ${cols} from ${ident(spec.name)} ${where} order by ${keys} limit ${pageSize}`,
      values: last ?? [],
      rowMode: 'array',
    });
    const rows = r.rows as unknown[][];
    for (const row of rows) summer.add(row);
    if (rows.length < pageSize) return summer.result();
    const tail = rows[rows.length - 1]!;
    last = keyIdx.map((i) => tail[i]);
  }
}
