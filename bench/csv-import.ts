/**
 * CSV import benchmark: a file of N rows (email, names, one custom field; default 1,000,000) is uploaded into the
 * import's chunk store and imported by the same pass the worker runs (csv-parse streaming, batches of 1,000 through the
 * bulk create of subscribers, progress committed per batch), into the embedded default (SQLite). The process's RSS is
 * sampled every 50 ms; flat memory means its peak growth does not depend on N. The same-run baseline writes the same
 * rows through the bulk create directly from a generator (no file, no parsing, no progress), in a fresh instance.
 * Targets: peak RSS growth ≤ 160 MB and at least 0.5 of the baseline's rows per second.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createList } from '../src/marketing/lists/lists.service.ts';
import { bulkCreate, type BulkEntry } from '../src/marketing/subscribers/subscribers.bulk.ts';
import { startImport, uploadImport, importOf } from '../src/marketing/imports/imports.service.ts';
import { runImport } from '../src/marketing/imports/import.run.ts';
import { embedded, fmt, type BenchRow } from './support.ts';

async function writeCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('email,first_name,last_name,Plan\n');
  for (let i = 0; i < rows; i++) {
    if (!out.write(`person${i}@example.org,First${i},Last${i},${i % 3 ? 'basic' : 'plus'}\n`))
      await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

function sampler(): { peak(): number; stop(): void } {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  return { peak: () => (peak - start) / 1024 / 1024, stop: () => clearInterval(timer) };
}

/** Imports an N-row CSV and compares it with bulk creates of the same rows. */
export async function csvImportBench(rows: number): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-csv-'));
  const file = path.join(dir, 'people.csv');
  await writeCsv(file, rows);
  global.gc?.();
  const inst = await embedded();
  let measured: { seconds: number; peakMb: number; added: number };
  try {
    const customerId = (
      await inst.ctx.database.db.selectFrom('customers').select('id').executeTakeFirstOrThrow()
    ).id;
    const list = await createList(inst.ctx, customerId, 'Bench');
    const mem = sampler();
    const t0 = performance.now();
    const up = await uploadImport(inst.ctx, customerId, {
      listId: list.id,
      fileName: 'people.csv',
      source: createReadStream(file),
      createdBy: 'bench',
    });
    await startImport(inst.ctx, customerId, up.id, up.mapping, false, false);
    await runImport(inst.ctx, Number(up.id));
    const seconds = (performance.now() - t0) / 1000;
    mem.stop();
    const result = await importOf(inst.ctx, customerId, up.id);
    measured = { seconds, peakMb: mem.peak(), added: result.added };
    if (result.added !== rows) throw new Error(`import added ${result.added} of ${rows}`);
  } finally {
    await inst.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const base = await embedded();
  let baseSeconds: number;
  try {
    const customerId = (
      await base.ctx.database.db.selectFrom('customers').select('id').executeTakeFirstOrThrow()
    ).id;
    const list = await createList(base.ctx, customerId, 'Bench');
    const t0 = performance.now();
    for (let i = 0; i < rows; i += 1000) {
      const batch: BulkEntry[] = [];
      for (let j = i; j < Math.min(rows, i + 1000); j++)
        batch.push({
          email: `person${j}@example.org`,
          first_name: `First${j}`,
          last_name: `Last${j}`,
          custom_fields: [{ name: 'Plan', value: j % 3 ? 'basic' : 'plus' }],
        });
      await bulkCreate(base.ctx, customerId, batch, list.id);
    }
    baseSeconds = (performance.now() - t0) / 1000;
  } finally {
    await base.close();
  }
  const rate = rows / measured.seconds;
  const baseRate = rows / baseSeconds;
  return [
    {
      name: `csv import: ${fmt(rows)} rows (upload, parse, import in batches of 1,000, progress per batch), SQLite durable`,
      measured: `${fmt(measured.seconds, 1)} s (${fmt(rate)} rows/s), peak RSS +${fmt(measured.peakMb)} MB`,
      baseline: `${fmt(baseSeconds, 1)} s (${fmt(baseRate)} rows/s, bulk create of the same rows from memory)`,
      ratio: rate / baseRate,
      target: '≥ 0.5 of baseline and peak RSS growth ≤ 160 MB',
      met: rate / baseRate >= 0.5 && measured.peakMb <= 160,
    },
  ];
}
