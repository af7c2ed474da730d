/**
 * ARCHITECTURE.md lists every database table with its owner. The tables are read from the migrations (what `up`
 * creates, less what it drops) and from the Kysely schema (`DB` in db/types.ts), so a table added, renamed or dropped
 * without the list changing fails here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(fileURLToPath(import.meta.url));
const MIGRATIONS = path.join(SRC, 'db/migrations');
const read = (file: string) => readFileSync(file, 'utf8');

/** Tables the migrations leave behind: created in an `up`, not dropped by a later `up`. */
function migratedTables(): string[] {
  const tables = new Set<string>();
  const files = readdirSync(MIGRATIONS)
    .filter((f) => /^\d{4}_.*\.ts$/.test(f))
    .sort();
  for (const file of files) {
    const up = read(path.join(MIGRATIONS, file)).split(/export async function down\b/)[0]!;
    // Kysely's schema builder (`.createTable('x')`) or plain SQL (`create table x`).
    const statements =
      /\.(createTable|dropTable)\(\s*'([a-z_]+)'|\b(create|drop) table (?:if (?:not )?exists )?([a-z_]+)/gi;
    for (const m of up.matchAll(statements)) {
      const name = (m[2] ?? m[4])!;
      if (/^create/i.test(m[1] ?? m[3]!)) tables.add(name);
      else tables.delete(name);
    }
  }
  return [...tables].sort();
}

/** The keys of the `DB` interface, the schema as Kysely sees it. */
function typedTables(): string[] {
  const body = /export interface DB \{([^}]*)\}/.exec(read(path.join(SRC, 'db/types.ts')))?.[1] ?? '';
  return [...body.matchAll(/^\s*([a-z_]+):/gm)].map((m) => m[1]!).sort();
}

/** The rows of the table under "Who owns which table" in ARCHITECTURE.md: table name and owner folder. */
function documentedTables(): { table: string; owner: string }[] {
  const doc = read(path.join(SRC, '../ARCHITECTURE.md'));
  const section = doc.split(/^## Who owns which table$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\| `([a-z_]+)` +\| `([a-z-]+)` +\|/gm)].map((m) => ({
    table: m[1]!,
    owner: m[2]!,
  }));
}

describe('the table list in ARCHITECTURE.md', () => {
  const migrated = migratedTables();
  const documented = documentedTables();

  it('finds the tables of the migrations in the Kysely schema', () => {
    expect(migrated.length).toBeGreaterThan(0);
    expect(typedTables()).toEqual(migrated);
  });

  it('lists every table once, and no table that does not exist', () => {
    const names = documented.map((d) => d.table);
    expect(
      names.filter((n, i) => names.indexOf(n) !== i),
      'listed twice',
    ).toEqual([]);
    expect(
      migrated.filter((t) => !names.includes(t)),
      'add the table and its owner to "Who owns which table" in ARCHITECTURE.md',
    ).toEqual([]);
    expect(
      names.filter((t) => !migrated.includes(t)),
      'remove tables no migration creates from ARCHITECTURE.md',
    ).toEqual([]);
  });

  it('names an existing top-level folder of src/ as each owner', () => {
    expect(documented.filter((d) => !existsSync(path.join(SRC, d.owner))).map((d) => d.owner)).toEqual([]);
  });
});
