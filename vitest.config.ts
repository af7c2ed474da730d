import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.SEALPOST_TEST_REPORT ? ['default', ['json', { outputFile: process.env.SEALPOST_TEST_REPORT }]] : ['default'],
  },
});
