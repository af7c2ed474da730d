import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { databaseTestFiles } from './selection.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const touching = new Set(databaseTestFiles(ROOT));

describe('which test files run on every database', () => {
  it('counts a file that reaches the test database through test support', () => {
    // settings.test.ts builds its app through the harness, which opens the database.
    expect(touching.has('src/marketing/settings/settings.test.ts')).toBe(true);
  });

  it('counts no unit test, since unit tests run once and must need no database', () => {
    const units = (readdirSync(path.join(ROOT, 'src'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.unit.test.ts'))
      .map((f) => `src/${f.split(path.sep).join('/')}`);
    expect(units.length).toBeGreaterThan(10);
    expect(units.filter((f) => touching.has(f))).toEqual([]);
  });
});
