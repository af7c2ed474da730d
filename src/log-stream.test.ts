import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { batchedLogStream } from './log-stream.ts';

/** A log file to write to, removed after the test. */
function logFile(): { fd: number; read: () => string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-log-stream-'));
  const file = path.join(dir, 'server.log');
  const fd = openSync(file, 'a');
  onTestFinished(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });
  return { fd, read: () => readFileSync(file, 'utf8') };
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

it('gathers lines for a moment and then writes them all, in order', async () => {
  const { fd, read } = logFile();
  const delayMs = 300;
  const stream = batchedLogStream(fd, delayMs);
  const start = performance.now();
  for (let i = 0; i < 5; i++) stream.write(`{"i":${i}}\n`);
  await new Promise((r) => setTimeout(r, 50));
  // Before the delay has passed, the gathering timer cannot have fired: nothing is written yet.
  if (performance.now() - start < delayMs) expect(read()).toBe('');
  await until(() => read().split('\n').length === 6, 5_000);
  expect(read()).toBe([0, 1, 2, 3, 4].map((i) => `{"i":${i}}\n`).join(''));
});

it('writes at once when enough has gathered, without waiting for the delay', async () => {
  const { fd, read } = logFile();
  const stream = batchedLogStream(fd, 60_000, 1024);
  const line = `{"msg":"${'x'.repeat(100)}"}\n`;
  // Ten lines reach 1 KB and go at once; the eleventh waits for the next batch.
  for (let i = 0; i < 11; i++) stream.write(line);
  await until(() => read().length === 10 * line.length, 5_000);
  stream.flushSync();
  expect(read().length).toBe(11 * line.length);
});

it('writes what has gathered when flushed synchronously, as on the way out', () => {
  const { fd, read } = logFile();
  const stream = batchedLogStream(fd, 60_000);
  stream.write('{"msg":"last words"}\n');
  stream.flushSync();
  expect(read()).toBe('{"msg":"last words"}\n');
});
