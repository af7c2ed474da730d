/** The logger's two faces: readable lines for a terminal, JSON lines for a pipe or a file. */
import { execFileSync, spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { packageRoot } from './config/package-root.ts';

/** Runs a logger in a child process (the pretty printer writes to the process's own stdout) and returns what it printed. */
function logOnce(isTty: boolean): string {
  const script = `
    import { loadConfig } from './src/config/load.ts';
    import { createLogger } from './src/runtime.ts';
    const log = createLogger(loadConfig({ SEALPOST_LOG_LEVEL: 'info' }), 'stdout', ${isTty});
    log.info({ queue: 'delivery' }, 'worker started');
    log.flush?.();
  `;
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: packageRoot(),
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    encoding: 'utf8',
  });
}

it('prints readable lines to a terminal', () => {
  // eslint-disable-next-line no-control-regex
  const out = logOnce(true).replace(/\u001b\[[0-9;]*m/g, '');
  expect(out).toMatch(/INFO.*worker started/);
  expect(out).toContain('queue: "delivery"');
  expect(() => JSON.parse(out.trim().split('\n')[0] ?? '')).toThrow();
});

it('prints one JSON object per line to a pipe', () => {
  const line = JSON.parse(logOnce(false).trim());
  expect(line).toMatchObject({ level: 30, msg: 'worker started', queue: 'delivery', service: 'sealpost' });
});

it('leaves the pretty printer unloaded when no terminal reads the log', () => {
  const script = `
    import { createRequire } from 'node:module';
    import { loadConfig } from './src/config/load.ts';
    import { createLogger } from './src/runtime.ts';
    createLogger(loadConfig({}), 'stderr', false);
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('pino-pretty'));
    process.stdout.write(JSON.stringify(loaded));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: packageRoot(),
    encoding: 'utf8',
  });
  expect(JSON.parse(out)).toEqual([]);
});

/**
 * Starts a child process running `script` with the server's logger; resolves with what it printed and how it ended.
 * With `killOn`, the child is killed outright once that text is printed, or after 15 s without it; a kill skips the
 * writes on the way out, so only lines written while the child ran are printed.
 */
function serverLogChild(script: string, killOn?: string): Promise<{ out: string; code: number | null }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { loadConfig } from './src/config/load.ts';
       import { createLogger } from './src/runtime.ts';
       const log = createLogger(loadConfig({ SEALPOST_LOG_LEVEL: 'info' }), 'stdout', false);
       ${script}`,
    ],
    { cwd: packageRoot(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (killOn && out.includes(killOn)) child.kill('SIGKILL');
  });
  const valve = killOn ? setTimeout(() => child.kill('SIGKILL'), 15_000) : undefined;
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(valve);
      resolve({ out, code });
    }),
  );
}

it('writes a line of the running server while it runs, without waiting for more or for the exit', async () => {
  const r = await serverLogChild(
    `log.info('one quiet line'); setInterval(() => undefined, 1000);`,
    'one quiet line',
  );
  expect(r.out).toContain('one quiet line');
  expect(JSON.parse(r.out.trim())).toMatchObject({ msg: 'one quiet line' });
});

it('writes the lines still gathered when the process dies of an uncaught error', async () => {
  const r = await serverLogChild(`
    for (let i = 0; i < 3; i++) log.info({ i }, 'before the crash');
    setImmediate(() => { throw new Error('boom'); });
  `);
  expect(r.code).not.toBe(0);
  // Written, though not always in order: the first line may still be on its way when the rest are flushed at exit.
  const written = r.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).i as number);
  expect(written.sort()).toEqual([0, 1, 2]);
});
