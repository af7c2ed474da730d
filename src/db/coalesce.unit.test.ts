import { expect, it } from 'vitest';
import { coalesced } from './coalesce.ts';

/** A look-up over a fixed table that records each call it answers. */
function recordingLookup() {
  const calls: [string, string[]][] = [];
  const table: Record<string, Record<string, number>> = { a: { x: 1, y: 2 }, b: { x: 3 } };
  const lookup = coalesced(async (group: string, keys: string[]) => {
    calls.push([group, keys]);
    if (group === 'broken') throw new Error('lookup failed');
    return new Map(keys.filter((k) => k in (table[group] ?? {})).map((k) => [k, table[group]![k]!]));
  });
  return { calls, lookup };
}

it('answers the calls of one turn with one look-up per group, each call with its own keys', async () => {
  const { calls, lookup } = recordingLookup();
  const answers = await Promise.all([
    lookup('a', ['x', 'z']),
    lookup('a', ['y', 'x']),
    lookup('b', ['x', 'y']),
  ]);
  expect(answers.map((m) => Object.fromEntries(m))).toEqual([{ x: 1 }, { y: 2, x: 1 }, { x: 3 }]);
  expect(calls).toEqual([
    ['a', ['x', 'z', 'y']],
    ['b', ['x', 'y']],
  ]);
  await lookup('a', ['y']);
  expect(calls).toHaveLength(3); // a later turn looks up again
});

it('fails every call of a group whose look-up fails, and no other', async () => {
  const { lookup } = recordingLookup();
  const [broken, fine] = await Promise.allSettled([lookup('broken', ['x']), lookup('a', ['x'])]);
  expect(broken).toMatchObject({ status: 'rejected', reason: new Error('lookup failed') });
  expect(fine).toMatchObject({ status: 'fulfilled' });
});
