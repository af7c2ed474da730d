/**
 * Queries compiled once. Kysely builds and compiles every query anew, and on the hot paths (accepting a message,
 * authenticating a key, enqueueing work) that costs more than SQLite takes to run the statement. A precompiled query is
 * built once per dialect with stand-in values and compiled to SQL; every call then runs that SQL with its own values.
 * So the builder must give the same SQL whatever the values: no branches on them, no lists whose length varies.
 */
import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
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
export function precompile<A extends Record<string, unknown>, R>(
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
    const parameters = query.parameters.map((p) => (isSlot(p) ? (values[p[SLOT]] ?? null) : p));
    return db.executeQuery(CompiledQuery.raw(query.sql, parameters) as CompiledQuery<R>);
  };
}
