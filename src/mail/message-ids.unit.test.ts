import { expect, it } from 'vitest';
import { newMessageId } from './message-ids.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

it('makes version 7 UUIDs that carry their creation time', () => {
  const id = newMessageId(Date.UTC(2026, 10, 21, 12));
  expect(id).toMatch(UUID_V7);
  expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(Date.UTC(2026, 10, 21, 12));
});

it('makes ids that sort in the order of their times and differ within one millisecond', () => {
  const earlier = Array.from({ length: 50 }, () => newMessageId(1_800_000_000_000));
  const later = newMessageId(1_800_000_000_001);
  expect(new Set(earlier).size).toBe(50);
  for (const id of earlier) expect(id < later).toBe(true);
});
