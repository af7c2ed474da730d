/**
 * Queries compiled once. Kysely builds and compiles every query anew, and on the hot paths (accepting a message,
 * authenticating a key, enqueueing work) that costs more than SQLite takes to run the statement. A precompiled query is
 * built once per dialect with stand-in values and compiled to SQL; every call then runs that SQL with its own values.
 * So the builder must give the same SQL whatever the values: no branches on them, no lists whose length varies.
 */
import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Queryable } from './types.ts';

const SLOT = Symbol('precompiled value');
type Slot = { readonly [SLOT]: string };
const isSlot = (v: unknown): v is Slot => typeof v === 'object' && v !== null && SLOT in v;

/** Runs a precompiled query with the values of one call (undefined values are bound as NULL). */
export type Precompiled<A, R> = (db: Queryable, values: A) => Promise<QueryResult<R>>;

/**
 * Precompiles the query `build` makes from `values`. `build` is called once per dialect with stand-ins that only
 * record where each value goes; it must not read or branch on them.
 */
export function precompile<A extends object, R>(
  build: (db: Queryable, values: A) => Compilable<R>,
): Precompiled<A, R> {
  // Keyed by the dialect adapter, which a Kysely instance and its transactions share.
  const compiled = new WeakMap<object, { sql: string; parameters: readonly unknown[] }>();
  const standIns = new Proxy({}, { get: (_target, name) => ({ [SLOT]: String(name) }) }) as A;
  return (db, values) => {
    const adapter = db.getExecutor().adapter;
    let query = compiled.get(adapter);
    if (!query) {
      const { sql, parameters } = build(db, standIns).compile();
      query = { sql, parameters };
      compiled.set(adapter, query);
    }
    const parameters = query.parameters.map((p) =>
      isSlot(p) ? ((values as Record<string, unknown>)[p[SLOT]] ?? null) : p,
    );
    return db.executeQuery(CompiledQuery.raw(query.sql, parameters) as CompiledQuery<R>);
  };
}

/** Runs a precompiled multi-row statement over a list of rows (in chunks; nothing runs for an empty list). */
export type PrecompiledRows<A, R> = (db: Queryable, rows: readonly A[]) => Promise<R[]>;

/** Rows per statement: keeps every chunk under both dialects' limits on bound parameters. */
const ROWS_PER_STATEMENT = 500;
/** Row counts whose SQL is kept per statement and dialect (the least recently used is dropped first). */
const SIZES_KEPT = 64;

/**
 * Precompiles a statement over many rows (a multi-row INSERT): `build` is given stand-in rows and must use every row,
 * each column in the same way whatever the values. The SQL is compiled once for each row count a chunk has, so a
 * batch of n rows costs one statement instead of n. Returns the rows the statements return, chunk after chunk.
 */
export function precompileRows<A extends Record<string, unknown>, R>(
  build: (db: Queryable, rows: A[]) => Compilable<R>,
): PrecompiledRows<A, R> {
  // Each parameter is a constant of the builder or the place of a row's value: [row index, column].
  type Compiled = { sql: string; parameters: readonly unknown[]; places: ([number, string] | null)[] };
  const compiled = new WeakMap<object, LRUCache<number, Compiled>>();
  const standIns = (n: number): A[] =>
    Array.from(
      { length: n },
      (_, i) => new Proxy({}, { get: (_target, name) => ({ [SLOT]: String(name), row: i }) }) as A,
    );
  const compile = (db: Queryable, n: number): Compiled => {
    const { sql, parameters } = build(db, standIns(n)).compile();
    const places = parameters.map((p) =>
      isSlot(p) ? ([(p as Slot & { row: number }).row, p[SLOT]] as [number, string]) : null,
    );
    return { sql, parameters, places };
  };
  const run = async (db: Queryable, rows: readonly A[]): Promise<R[]> => {
    const adapter = db.getExecutor().adapter;
    let bySize = compiled.get(adapter);
    if (!bySize) compiled.set(adapter, (bySize = new LRUCache({ max: SIZES_KEPT })));
    let query = bySize.get(rows.length);
    if (!query) bySize.set(rows.length, (query = compile(db, rows.length)));
    const parameters = query.places.map((place, i) =>
      place ? (rows[place[0]]![place[1]] ?? null) : query.parameters[i],
    );
    return (await db.executeQuery(CompiledQuery.raw(query.sql, parameters) as CompiledQuery<R>)).rows;
  };
  return async (db, rows) => {
    const out: R[] = [];
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT)
      out.push(...(await run(db, rows.slice(i, i + ROWS_PER_STATEMENT))));
    return out;
  };
}
