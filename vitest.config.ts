import { defineConfig } from 'vitest/config';

// Browser tests (Chromium) are slow and do not depend on the database or the Node.js version; CI runs them in one of
// its configurations and sets SEALPOST_SKIP_BROWSER_TESTS=1 in the others.
const skipBrowser = process.env.SEALPOST_SKIP_BROWSER_TESTS === '1';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(skipBrowser ? ['**/*.browser.test.ts'] : [])],
    pool: 'forks',
    // Generous: CLI and process tests start real processes, and CI machines are shared (2 cores).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: process.env.SEALPOST_TEST_REPORT
      ? ['default', ['json', { outputFile: process.env.SEALPOST_TEST_REPORT }]]
      : ['default'],
  },
});
