/**
 * What a move copies, read from the two schemas themselves: every table of the embedded (SQLite) database except
 * SQLite's own and the migration bookkeeping, its columns and key, matched against the same table in PostgreSQL
 * (migrated beforehand), and an order in which foreign keys are always satisfied.
 */
import type SQLite from 'better-sqlite3';
import type pg from 'pg';

/** One table to copy. */
export interface TableSpec {
  name: string;
  /** Every column, in the SQLite table's order. */
  columns: string[];
  /** Columns of the primary key, in key order (`rowid` for a table without one). */
  key: string[];
  /** Whether each key column is an integer on the SQLite side (numbers compare as numbers when resuming). */
  keyIsInteger: boolean[];
  /** Identity or serial columns in PostgreSQL, whose counters are set past the copied values. */
  counters: string[];
}

/** The target's record of how far each table has been copied; dropped when the move has been verified. */
export const PROGRESS_TABLE = 'sealpost_move_progress';

/** Tables of the engines, the migrator and the move itself; the target has its own after `migrate`. */
const OWN_TABLES = new RegExp(`^(sqlite_|kysely_migration|${PROGRESS_TABLE}$)`);

/** A schema difference that stops a move before anything is copied. */
export class SchemaMismatch extends Error {}

/** Quotes an identifier for either dialect. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

interface SqliteColumn {
  name: string;
  type: string;
  pk: number;
}

/** The tables of the source with their columns and keys, matched against the target, in a copy order. */
export async function planTables(source: SQLite.Database, target: pg.Client): Promise<TableSpec[]> {
  const names = (
    source.prepare("select name from sqlite_master where type = 'table' order by name").all() as {
      name: string;
    }[]
  )
    .map((r) => r.name)
    .filter((n) => !OWN_TABLES.test(n));
  const pgColumns = await target.query<{ table_name: string; column_name: string; udt_name: string }>(
    `select table_name, column_name, udt_name from information_schema.columns
      where table_schema = current_schema() order by table_name, ordinal_position`,
  );
  const pgCounters = await target.query<{ table_name: string; column_name: string }>(
    `select table_name, column_name from information_schema.columns
      where table_schema = current_schema() and (is_identity = 'YES' or column_default like 'nextval(%')`,
  );
  const byTable = new Map<string, Map<string, string>>();
  for (const r of pgColumns.rows) {
    if (!byTable.has(r.table_name)) byTable.set(r.table_name, new Map());
    byTable.get(r.table_name)!.set(r.column_name, r.udt_name);
  }
  const specs: TableSpec[] = [];
  for (const name of names) {
    const target = byTable.get(name);
    if (!target)
      throw new SchemaMismatch(`table ${name} exists in the embedded database but not in PostgreSQL`);
    const cols = source
      .prepare(`select name, type, pk from pragma_table_info(?)`)
      .all(name) as SqliteColumn[];
    for (const c of cols)
      if (!target.has(c.name))
        throw new SchemaMismatch(
          `column ${name}.${c.name} exists in the embedded database but not in PostgreSQL`,
        );
    for (const c of target.keys())
      if (!cols.some((s) => s.name === c))
        throw new SchemaMismatch(`column ${name}.${c} exists in PostgreSQL but not in the embedded database`);
    const keyCols = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    specs.push({
      name,
      columns: cols.map((c) => c.name),
      key: keyCols.length ? keyCols.map((c) => c.name) : ['rowid'],
      keyIsInteger: keyCols.length ? keyCols.map((c) => /int/i.test(c.type)) : [true],
      counters: pgCounters.rows.filter((r) => r.table_name === name).map((r) => r.column_name),
    });
  }
  for (const t of byTable.keys())
    if (!OWN_TABLES.test(t) && !names.includes(t))
      throw new SchemaMismatch(`table ${t} exists in PostgreSQL but not in the embedded database`);
  return orderByForeignKeys(specs, await foreignKeys(target));
}

/** `[referencing, referenced]` table pairs of the target's foreign keys. */
async function foreignKeys(target: pg.Client): Promise<[string, string][]> {
  const r = await target.query<{ child: string; parent: string }>(
    `select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
       from pg_constraint c join pg_namespace n on n.oid = c.connamespace
      where c.contype = 'f' and n.nspname = current_schema()`,
  );
  return r.rows.map((x) => [x.child.replace(/^"|"$/g, ''), x.parent.replace(/^"|"$/g, '')]);
}

/** Tables ordered so that every table comes after those it references (names break ties, so the order is stable). */
export function orderByForeignKeys(specs: TableSpec[], edges: [string, string][]): TableSpec[] {
  const parents = new Map(specs.map((s) => [s.name, new Set<string>()]));
  for (const [child, parent] of edges) if (child !== parent) parents.get(child)?.add(parent);
  const done = new Set<string>();
  const out: TableSpec[] = [];
  const visit = (spec: TableSpec, path: Set<string>) => {
    if (done.has(spec.name)) return;
    if (path.has(spec.name)) throw new SchemaMismatch(`foreign keys form a cycle through ${spec.name}`);
    path.add(spec.name);
    for (const p of [...parents.get(spec.name)!].sort()) {
      const parent = specs.find((s) => s.name === p);
      if (parent) visit(parent, path);
    }
    path.delete(spec.name);
    done.add(spec.name);
    out.push(spec);
  };
  for (const s of [...specs].sort((a, b) => a.name.localeCompare(b.name))) visit(s, new Set());
  return out;
}

/** Names of the migrations applied to the embedded database, in order. */
export function sourceMigrations(source: SQLite.Database): string[] {
  const has = source
    .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
    .get();
  if (!has) return [];
  return (source.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map(
    (r) => r.name,
  );
}

/** Names of the migrations applied to the target, in order. */
export async function targetMigrations(target: pg.Client): Promise<string[]> {
  const r = await target.query<{ name: string }>('select name from kysely_migration order by name');
  return r.rows.map((x) => x.name);
}

/** Whether the service holding this database is running (its scheduler lease is current). */
export function sourceLeaseCurrent(source: SQLite.Database, now = Date.now()): boolean {
  try {
    const row = source.prepare("select lease_until from leases where name = 'scheduler'").get() as
      { lease_until: number } | undefined;
    return Boolean(row && Number(row.lease_until) > now);
  } catch {
    return false;
  }
}
