/**
 * Backup benchmark: `backupDatabase` (SQLite's online backup API, then the integrity, schema and master-key checks) on
 * an embedded database of BENCH_BACKUP_MB megabytes of message-sized rows, beside a same-run baseline: copying the same
 * file with copyFileSync. The backup also reads the copy once more (quick_check), so it cannot match a plain copy.
 * Target: a 5 GB database backed up within 5 minutes; with BENCH_BACKUP_MB=5000 or more it is measured whole, with
 * less extrapolated from the measured rate.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/load.ts';
import { connect } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { sqliteDriver } from '../src/db/sqlite-driver.ts';
import { backupDatabase } from '../src/ops/backup.ts';
import { fmt, type BenchRow } from './support.ts';

/** Fills a migrated database with `mb` megabytes of 4 KiB rows in a scratch table. */
async function fill(file: string, mb: number): Promise<void> {
  const database = await connect({ dialect: 'sqlite', file });
  await migrateToLatest(database);
  await database.close();
  const db = new (sqliteDriver())(file);
  db.exec('create table bench_fill (id integer primary key, body blob not null)');
  const insert = db.prepare('insert into bench_fill (body) values (?)');
  const rows = Math.ceil((mb * 1024 * 1024) / 4096);
  const body = randomBytes(4096);
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(body);
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** Runs the backup benchmark. */
export async function backupBench(mb: number): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-bench-backup-'));
  try {
    const file = path.join(dir, 'sealpost.db');
    await fill(file, mb);
    const size = statSync(file).size;
    const copyStart = performance.now();
    copyFileSync(file, path.join(dir, 'plain-copy.db'));
    const copySeconds = (performance.now() - copyStart) / 1000;
    const config = loadConfig(
      {},
      { databaseUrl: `sqlite://${file}`, masterKey: randomBytes(32).toString('base64'), dataDir: dir },
    );
    const start = performance.now();
    await backupDatabase(config, path.join(dir, 'backup.db'));
    const seconds = (performance.now() - start) / 1000;
    const rate = size / 1e6 / seconds;
    const baseline = size / 1e6 / copySeconds;
    const ratio = rate / baseline;
    const whole = size >= 5e9;
    return [
      {
        name: whole
          ? `backup (${fmt(size / 1e6)} MB, measured whole)`
          : `backup (${fmt(size / 1e6)} MB; 5 GB extrapolated: ${fmt(5000 / rate)} s)`,
        measured: `${fmt(rate)} MB/s (${fmt(seconds, 1)} s)`,
        baseline: `${fmt(baseline)} MB/s file copy`,
        ratio,
        target: whole ? '5 GB within 300 s' : '5 GB within 300 s (extrapolated)',
        met: 5000 / rate <= 300,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
