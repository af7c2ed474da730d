import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type SQLite from 'better-sqlite3';
import { expect, it, onTestFinished } from 'vitest';
import { TEST_DIALECT } from '../test/database.ts';
import { checkpointOffLoop, type Checkpoints } from './checkpoints.ts';
import { sqliteDriver } from './sqlite-driver.ts';

const MiB = 1024 * 1024;
const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);

function scratchDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sealpost-checkpoints-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A database file in WAL mode, its writer with checkpoints taken over, and a table to fill. */
function openWriter(): { file: string; writer: SQLite.Database; checkpoints: Checkpoints } {
  const file = path.join(scratchDir(), 'sealpost.db');
  const writer = new (sqliteDriver())(file);
  writer.pragma('journal_mode = WAL');
  writer.exec('create table blobs (id integer primary key, body blob not null)');
  const checkpoints = checkpointOffLoop(file, writer);
  onTestFinished(async () => {
    await checkpoints.stop();
    if (writer.open) writer.close();
  });
  return { file, writer, checkpoints };
}

/** Commits `mib` MiB of new rows, a quarter MiB per transaction, without yielding the event loop (no tick runs). */
function write(writer: SQLite.Database, mib: number): void {
  const insert = writer.prepare('insert into blobs (body) values (randomblob(?))');
  for (let i = 0; i < mib * 4; i++) insert.run(MiB / 4);
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it.runIf(TEST_DIALECT === 'sqlite')(
  'copies the log into the database file on its own thread, never inside a commit, and keeps the log from growing',
  async () => {
    const { file, writer, checkpoints } = openWriter();

    // SQLite's default would have copied the log at 4 MiB inside a commit and started it over: it grows on here.
    write(writer, 6);
    expect(size(`${file}-wal`)).toBeGreaterThan(6 * MiB);
    expect(size(file)).toBeLessThan(MiB);

    // With no further write, the rows reach the database file.
    await until(() => checkpoints.made() > 0);
    expect(size(file)).toBeGreaterThan(5.5 * MiB);

    // The next commits start the log over from its beginning instead of making it longer.
    const logAfterFirst = size(`${file}-wal`);
    write(writer, 3);
    expect(size(`${file}-wal`)).toBeLessThanOrEqual(logAfterFirst);
    await until(() => checkpoints.made() > 1);
    expect(size(file)).toBeGreaterThan(8.5 * MiB);
    expect(writer.prepare('select count(*) as n from blobs').get()).toEqual({ n: 36 });

    // Stopped, the thread's connection is closed: the writer, the last to close, removes the log.
    await checkpoints.stop();
    writer.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
  },
);

it.runIf(TEST_DIALECT === 'sqlite')('starts no thread for a log that stays small', async () => {
  const { file, writer, checkpoints } = openWriter();
  write(writer, 2);
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  // Nothing copied the log: the rows are still only in it.
  expect(checkpoints.running()).toBe(false);
  expect(size(file)).toBeLessThan(MiB);
  expect(size(`${file}-wal`)).toBeGreaterThan(1.5 * MiB);
});

it.runIf(TEST_DIALECT === 'sqlite')(
  'lets a process whose database was opened with connect() and closed end on its own',
  async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const child = spawn(
      process.execPath,
      ['bin/run-ts.js', 'src/db/fixtures/write-and-close.ts', path.join(scratchDir(), 'sealpost.db')],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    onTestFinished(() => void child.kill());
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(output).toBe('copied; closed; log removed\n');
    expect(code).toBe(0);
  },
);
