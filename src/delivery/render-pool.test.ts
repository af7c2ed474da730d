import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { expect, it, onTestFinished } from 'vitest';
import { createRenderPool } from './render-pool.ts';
import { renderSigned, type RenderJob } from './render.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const ed = generateKeyPairSync('ed25519').privateKey;

const job = (n: number): RenderJob => ({
  options: {
    from: { address: 'desk@clinic.example', name: 'Front Desk' },
    replyTo: { address: 'care@clinic.example', name: '' },
    subject: `Your results ${n} — Grüße`,
    messageId: `<m${n}@clinic.example>`,
    date: new Date(Date.UTC(2026, 10, 27, 9, 30)),
    headers: { 'X-Ref': String(n), 'X-Addresses-Here': '1' },
    text: `Hello ${n}, your results are ready.`,
    html: `<p>Hello ${n}, your <a href="https://portal.example/">results</a> are ready.</p>`,
    envelope: { from: 'desk@clinic.example', to: [`patient${n}@example.org`] },
    baseBoundary: `b${n}`,
  } as RenderJob['options'],
  attachments: [{ fileName: 'results.pdf', contentType: 'application/pdf', content: 'JVBERi0xLjQK' }],
  splice: { header: 'X-Addresses-Here', lines: `To: patient${n}@example.org\r\n` },
  dkim: [
    { domainName: 'clinic.example', keySelector: 'r1', privateKey: rsa },
    { domainName: 'clinic.example', keySelector: 'r1e', privateKey: ed },
  ],
});

it('renders and signs on its threads exactly what the event loop renders, each copy its own', async () => {
  const renderer = createRenderPool(2).open();
  onTestFinished(() => renderer.close());
  const jobs = Array.from({ length: 12 }, (_, i) => job(i));
  const threaded = await Promise.all(jobs.map((j) => renderer.render(j)));
  const inline = await Promise.all(jobs.map((j) => renderSigned(j)));
  for (let i = 0; i < jobs.length; i++) {
    expect(threaded[i]!.equals(inline[i]!)).toBe(true);
    const text = threaded[i]!.toString('binary');
    expect(text.match(/^DKIM-Signature: /gm)).toHaveLength(2);
    expect(text).toContain(`\r\nTo: patient${i}@example.org\r\n`);
    expect(text).not.toContain('X-Addresses-Here');
  }
});

it('fails a copy that cannot be rendered with its reason, and renders the next', async () => {
  const renderer = createRenderPool(1).open();
  onTestFinished(() => renderer.close());
  const broken = { ...job(1), splice: { header: 'X-Not-There', lines: 'To: a@example.org\r\n' } };
  await expect(renderer.render(broken)).rejects.toThrow('the address header position was not found');
  expect((await renderer.render(job(2))).equals(await renderSigned(job(2)))).toBe(true);
});

it('renders on the event loop with no threads', async () => {
  const renderer = createRenderPool(0).open();
  expect((await renderer.render(job(3))).equals(await renderSigned(job(3)))).toBe(true);
  await renderer.close();
});

it('keeps its threads while one user is open, stops them with the last, and starts again when needed', async () => {
  const pool = createRenderPool(1);
  const a = pool.open();
  const b = pool.open();
  expect(pool.running()).toBe(0);
  await a.render(job(4));
  expect(pool.running()).toBe(1);
  const inFlight = b.render(job(5));
  await a.close();
  // b is still open: the thread finishes b's copy.
  expect((await inFlight).equals(await renderSigned(job(5)))).toBe(true);
  expect(pool.running()).toBe(1);
  await b.close();
  expect(pool.running()).toBe(0);
  const c = pool.open();
  onTestFinished(() => c.close());
  expect((await c.render(job(7))).equals(await renderSigned(job(7)))).toBe(true);
  expect(pool.running()).toBe(1);
});

it('keeps a process alive while a copy is on a thread, and lets it end once its threads are idle', async () => {
  const child = spawn(process.execPath, ['bin/run-ts.js', 'src/delivery/fixtures/render-once.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(output).toMatch(/^rendered \d+ bytes: with body\n$/);
  expect(code).toBe(0);
}, 30_000);

/** Holds the event loop for `ms`, as a long slice of synchronous work does. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * Renders `n` copies while the event loop is held, so that replies wait for it; returns in order each reply that
 * arrived from the thread, each copy handed on, and each turn of the loop. The hold grows until the thread's own
 * events show more than two replies arriving in one turn, however slow the thread is on this machine now.
 */
async function handOnOrder(contended: boolean, n: number): Promise<string[]> {
  const renderer = createRenderPool(1, { contended: () => contended }).open();
  onTestFinished(() => renderer.close());
  let thread: Worker | undefined;
  const started = (worker: Worker) => (thread = worker);
  process.on('worker', started);
  await renderer.render(job(0)); // the thread is up and its modules loaded
  process.off('worker', started);
  const order: string[] = [];
  thread!.on('message', () => order.push('reply'));
  for (let holdMs = 50; ; holdMs *= 2) {
    order.length = 0;
    const copies = Array.from({ length: n }, (_, i) =>
      renderer.render(job(i)).then(() => order.push('copy')),
    );
    hold(holdMs);
    let turning = true;
    const tick = () => {
      order.push('turn');
      if (turning) setImmediate(tick);
    };
    setImmediate(tick);
    await Promise.all(copies);
    turning = false;
    if (longestRun(order, 'reply') > 2 || holdMs >= 5000) return order;
  }
}

/** The longest run of `what` in `order` without a turn of the loop between them. */
const longestRun = (order: string[], what: string) =>
  Math.max(...runs(order).map((run) => run.filter((e) => e === what).length));

/** The events of `order` between turns of the loop. */
const runs = (order: string[]) =>
  order
    .join(',')
    .split('turn')
    .map((run) => run.split(',').filter(Boolean));

it('hands waiting copies on a few per turn of the event loop while the loop is contended', async () => {
  const order = await handOnOrder(true, 8);
  expect(longestRun(order, 'reply')).toBeGreaterThan(2);
  expect(longestRun(order, 'copy')).toBeLessThanOrEqual(2);
});

it('hands waiting copies on all at once while the loop is not contended', async () => {
  const order = await handOnOrder(false, 8);
  expect(longestRun(order, 'reply')).toBeGreaterThan(2);
  // Each copy goes on in the turn its reply arrived in.
  for (const run of runs(order))
    expect(run.filter((e) => e === 'copy').length).toBe(run.filter((e) => e === 'reply').length);
});
