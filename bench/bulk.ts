/**
 * Bulk import benchmark: `POST /v1/marketing/subscribers_bulk_create` with batches of 1,000 new subscribers (names and
 * one custom field each) into the embedded default (SQLite, synchronous=FULL, every 200 durable), from a client process
 * of its own with two requests in flight. The same-run baseline is raw better-sqlite3 writing the same rows (subscriber,
 * default-list membership, custom field value, list counter) with prepared statements, 1,000 per transaction, into a
 * migrated database of the same schema. Target: at least 20,000 subscribers/s.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type SQLite from 'better-sqlite3';
import { buildApp } from '../src/app/app.ts';
import { ensureDefaultList } from '../src/marketing/lists/lists.service.ts';
import { embedded, fmt, type BenchInstance, type BenchRow } from './support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BATCH = 1000;
const CONNECTIONS = 2;

/** Posts `total` new subscribers from a separate process; resolves to subscribers per second. */
async function importOver(url: string, key: string, total: number, first: number): Promise<number> {
  const spec = JSON.stringify({ url, key, total, batch: BATCH, connections: CONNECTIONS, first });
  const args = [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'bench/bulk-client.ts'), spec];
  const out = await new Promise<{ perSecond: number; failures: string[] }>((resolve, reject) =>
    execFile(process.execPath, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout)),
    ),
  );
  if (out.failures.length > 0)
    throw new Error(`bulk import failed ${out.failures.length} times: ${out.failures[0]}`);
  return out.perSecond;
}

/** The SQLite driver the server uses on this Node.js (see src/db/connect.ts). */
function sqliteDriver(): typeof SQLite {
  const require = createRequire(import.meta.url);
  return (
    Number(process.versions.node.split('.')[0]) >= 22
      ? require('better-sqlite3-napi')
      : require('better-sqlite3')
  ) as typeof SQLite;
}

/** Writes the same rows as the import with raw prepared statements; resolves to subscribers per second. */
async function rawInsert(inst: BenchInstance, total: number): Promise<number> {
  const customerId = (
    await inst.ctx.database.db.selectFrom('customers').select('id').executeTakeFirstOrThrow()
  ).id;
  const list = await ensureDefaultList(inst.ctx.database.db, customerId);
  const Driver = sqliteDriver();
  const raw = new Driver(path.join(inst.ctx.config.dataDir, 'sealpost.db'));
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.pragma('foreign_keys = ON');
  try {
    const now = Date.now();
    const fieldType = Number(
      raw
        .prepare(
          'INSERT INTO subscriber_custom_field_types (customer_id, name, name_key, created_at) VALUES (?, ?, ?, ?)',
        )
        .run(customerId, 'Plan', 'plan', now).lastInsertRowid,
    );
    const subscriber = raw.prepare(
      'INSERT INTO subscribers (customer_id, email, email_key, first_name, last_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const member = raw.prepare(
      'INSERT INTO subscription_list_members (list_id, subscriber_id, unsubscribed, created_at, updated_at) VALUES (?, ?, 0, ?, ?)',
    );
    const value = raw.prepare(
      'INSERT INTO subscriber_custom_field_values (subscriber_id, field_type_id, value) VALUES (?, ?, ?)',
    );
    const counter = raw.prepare(
      'UPDATE subscription_lists SET subscriber_count = subscriber_count + ?, updated_at = ? WHERE id = ?',
    );
    const batch = raw.transaction((start: number, end: number) => {
      for (let n = start; n < end; n++) {
        const email = `bulk${n}@import.example`;
        const id = subscriber.run(
          customerId,
          email,
          email,
          `First${n}`,
          'Imported',
          now,
          now,
        ).lastInsertRowid;
        member.run(list.id, id, now, now);
        value.run(id, fieldType, n % 2 ? 'gold' : 'silver');
      }
      counter.run(end - start, now, list.id);
    });
    const started = performance.now();
    for (let start = 0; start < total; start += BATCH) batch(start, Math.min(total, start + BATCH));
    return total / ((performance.now() - started) / 1000);
  } finally {
    raw.close();
  }
}

/** Runs the bulk import benchmark with `total` subscribers per side. */
export async function bulkImportBench(total: number): Promise<BenchRow[]> {
  const inst = await embedded();
  const app = await buildApp(inst.ctx);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const base = await embedded();
  try {
    await importOver(url, inst.key, 2 * BATCH, 10_000_000); // warm-up
    const ours = await importOver(url, inst.key, total, 0);
    const stored = await inst.ctx.database.db
      .selectFrom('subscriber_custom_field_values')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(stored.n) !== total + 2 * BATCH)
      throw new Error(`${stored.n} custom field values stored for ${total + 2 * BATCH} subscribers`);
    const baseline = await rawInsert(base, total);
    return [
      {
        name: `bulk import: ${fmt(total)} subscribers in batches of ${fmt(BATCH)} (1 custom field), 2 in flight, SQLite durable`,
        measured: `${fmt(ours)} subscribers/s`,
        baseline: `${fmt(baseline)} subscribers/s (raw better-sqlite3 prepared inserts, ${fmt(BATCH)} per transaction)`,
        ratio: ours / baseline,
        target: '≥ 20,000 subscribers/s',
        met: ours >= 20_000,
      },
    ];
  } finally {
    await app.close();
    await inst.close();
    await base.close();
  }
}
