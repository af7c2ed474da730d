import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { databaseTestFiles } from './src/test/selection.ts';

// SEALPOST_TEST_DB picks the databases: `sqlite` (the default: every test), `postgres` (the tests that touch a
// database), or `both` in one run (CI). Pure tests run once; browser tests (Chromium) run in the first database only.
const setting = process.env.SEALPOST_TEST_DB ?? 'sqlite';
const dialects =
  setting === 'both' ? ['sqlite', 'postgres'] : [setting === 'postgres' ? 'postgres' : 'sqlite'];
process.env.SEALPOST_TEST_DIALECTS = dialects.join(',');
const skipBrowser = process.env.SEALPOST_SKIP_BROWSER_TESTS === '1';
const ALL = ['src/**/*.test.ts'];
const WORKERS = Math.max(availableParallelism() + 1, 2);

export default defineConfig({
  test: {
    exclude: ['**/node_modules/**'],
    globalSetup: ['src/test/global-setup.ts'],
    pool: 'forks',
    // One file more than cores: files also wait on sockets, child processes and timers. On 2 cores, 4 workers kept the
    // CPU 96% busy and made the suite slower (856 s in CI) than 3 (724 s).
    maxWorkers: WORKERS,
    // Equal to maxWorkers: tinypool otherwise ends idle workers mid-run, which a non-isolated pool reports as an error.
    minWorkers: WORKERS,
    // Files share their worker's module graph: loading the app's modules once per worker, not once per file, halves
    // the suite's CPU time. Tests restore what they change (timers, environment).
    isolate: false,
    // Generous: CLI and process tests start real processes, and CI machines are shared (2 cores).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a page or a worker; 1 s (the default) is shorter than one busy round trip on CI.
    expect: { poll: { timeout: 10_000 } },
    reporters: process.env.SEALPOST_TEST_REPORT
      ? ['default', ['json', { outputFile: process.env.SEALPOST_TEST_REPORT }]]
      : ['default'],
    projects: dialects.map((dialect, i) => ({
      extends: true,
      test: {
        name: dialect,
        env: { SEALPOST_TEST_DB: dialect },
        include: dialect === 'sqlite' ? ALL : databaseTestFiles(path.dirname(fileURLToPath(import.meta.url))),
        exclude: ['**/node_modules/**', ...(skipBrowser || i > 0 ? ['**/*.browser.test.ts'] : [])],
      },
    })),
  },
});
