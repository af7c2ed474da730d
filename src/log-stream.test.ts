import fs, { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it, onTestFinished, vi } from 'vitest';
import { batchedLogStream, type LogStream } from './log-stream.ts';
import { waitFor } from './test/wait.ts';

/** A stream over a log file of its own, closed and removed after the test. */
function logFile(delayMs?: number, maxBytes?: number): { stream: LogStream; read: () => string; fd: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-log-stream-'));
  const file = path.join(dir, 'server.log');
  const fd = openSync(file, 'a');
  const stream = batchedLogStream(fd, delayMs, maxBytes);
  onTestFinished(async () => {
    await stream.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { stream, read: () => readFileSync(file, 'utf8'), fd };
}

it('gathers lines for the delay and then writes them all in one write, in order', async () => {
  // The gathering timer fires only when the test moves the clock on, and the writes to the file are counted.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  onTestFinished(() => void vi.useRealTimers());
  const delayMs = 300;
  const { stream, read, fd } = logFile(delayMs);
  const writes = vi.spyOn(fs, 'write');
  onTestFinished(() => writes.mockRestore());
  const writesToFile = () => writes.mock.calls.filter((call) => call[0] === fd).length;

  for (let i = 0; i < 5; i++) stream.write(`{"i":${i}}\n`);
  vi.advanceTimersByTime(delayMs - 1);
  expect(writesToFile()).toBe(0);
  vi.advanceTimersByTime(1);
  expect(writesToFile()).toBe(1);

  vi.useRealTimers();
  const all = [0, 1, 2, 3, 4].map((i) => `{"i":${i}}\n`).join('');
  await waitFor(() => read() === all, 5_000, 10, 'the lines in the file');
  expect(writesToFile()).toBe(1);
});

it('writes at once when enough has gathered, without waiting for the delay', async () => {
  const { stream, read } = logFile(60_000, 1024);
  const line = `{"msg":"${'x'.repeat(100)}"}\n`;
  // Ten lines reach 1 KB and go at once; the eleventh waits for the next batch.
  for (let i = 0; i < 11; i++) stream.write(line);
  await waitFor(() => read().length === 10 * line.length, 5_000);
  stream.flushSync();
  expect(read().length).toBe(11 * line.length);
});

it('writes what has gathered when flushed synchronously, as on the way out', () => {
  const { stream, read } = logFile(60_000);
  stream.write('{"msg":"last words"}\n');
  stream.flushSync();
  expect(read()).toBe('{"msg":"last words"}\n');
});

it('writes what has gathered when closed, and takes no more lines after', async () => {
  const { stream, read } = logFile(60_000);
  for (let i = 0; i < 3; i++) stream.write(`{"i":${i}}\n`);
  await stream.close();
  expect(read()).toBe('{"i":0}\n{"i":1}\n{"i":2}\n');
  // A line after the close is dropped, not written to a closed file.
  expect(stream.write('{"i":3}\n')).toBe(false);
});
