/**
 * Per-table checksums, computed the same way on both sides: every row in a canonical text form (each value as text,
 * integers in decimal, bytes as `\x` and hex, NULL kept apart from the text "null"), hashed with SHA-256; the table's
 * checksum is the sum of the rows' hashes modulo 2^128. A sum does not depend on the order rows are read in, which
 * differs between the engines for text keys; with a primary key no row can appear twice, so a lost, added or changed
 * row changes the sum.
 */
import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
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

/** COPY text-format escapes and what they stand for. */
const UNESCAPES: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
};

/** One field of COPY's text format as its value: `\N` is NULL, backslash escapes are undone. */
function copyField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  return field.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return UNESCAPES[e] ?? e;
  });
}

/**
 * The checksum of the same table in PostgreSQL, read in one `COPY … TO STDOUT` (text format: every value as its text
 * form, as the canonical form wants it).
 */
export async function targetChecksum(target: pg.Client, spec: TableSpec): Promise<TableSum> {
  const summer = new Summer();
  const stream = target.query(
    copyTo(`copy (select ${spec.columns.map(ident).join(', ')} from ${ident(spec.name)}) to stdout`),
  );
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const text = rest + decoder.write(chunk);
    const lines = text.split('\n');
    rest = lines.pop()!;
    for (const line of lines) summer.add(line.split('\t').map(copyField));
  }
  rest += decoder.end();
  if (rest) summer.add(rest.split('\t').map(copyField));
  return summer.result();
}
