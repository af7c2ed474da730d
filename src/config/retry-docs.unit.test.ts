/** docs/operations.md, docs/configuration.md and docs/email.md state the retry schedules the code uses. */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { KEYS } from './schema.ts';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../jobs/retry.ts';

const doc = (name: string) =>
  readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `1m,5m` as milliseconds. */
const parse = (list: string) =>
  list.split(',').map((d) => {
    const [, n, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(d)!;
    return Number(n) * UNIT_MS[unit as keyof typeof UNIT_MS];
  });

/** Milliseconds as the docs write them: `30 s`, `2 min`, `1 h`. */
const spoken = (ms: number) =>
  ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;

const listed = (schedule: readonly number[]) => schedule.map(spoken).join(', ');

it('states the delivery schedule the configuration defaults to, in operations, configuration and email', () => {
  const def = String(KEYS.deliveryRetrySchedule.default);
  expect(doc('configuration.md')).toContain(`\`${def}\``);
  const words = listed(parse(def));
  expect(doc('operations.md')).toContain(`\`SEALPOST_DELIVERY_RETRY_SCHEDULE\`, by default ${words}`);
  expect(doc('email.md')).toContain(`by default ${words}`);
});

it('states the webhook schedule and the built-in schedule of other work in operations', () => {
  const words = listed(parse(String(KEYS.webhookRetrySchedule.default)));
  expect(doc('operations.md')).toContain(`\`SEALPOST_WEBHOOK_RETRY_SCHEDULE\`, by default ${words}`);
  expect(doc('operations.md')).toContain(
    `other background work (exports, imports, notifications): ${listed(DEFAULT_RETRY_SCHEDULE_MS)}`,
  );
});
