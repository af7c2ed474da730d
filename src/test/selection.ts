/**
 * Which test files touch a database: those that reach `src/test/database.ts` through the imports of tests and test
 * support. The rest are pure and run once; database-touching files run once per dialect.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const DATABASE_MODULE = 'src/test/database.ts';
const IMPORT = /(?:from\s+|import\s*\(\s*)['"](\.\.?\/[^'"]+\.ts)['"]/g;

/** True for files that may import test code: tests, test support and the harness. */
const isTestCode = (rel: string) => /\.test(-support)?\.ts$/.test(rel) || rel.startsWith('src/test/');

/** Test files (paths relative to `root`) that import, directly or through test support, the test database module. */
export function databaseTestFiles(root: string): string[] {
  const files = (readdirSync(path.join(root, 'src'), { recursive: true }) as string[])
    .map((f) => `src/${f.split(path.sep).join('/')}`)
    .filter(isTestCode);
  const edges = new Map(
    files.map((rel) => {
      // Type-only imports load nothing at run time.
      const text = readFileSync(path.join(root, rel), 'utf8').replace(/import\s+type\s[^;]*;/g, '');
      const targets = [...text.matchAll(IMPORT)].map((m) => path.posix.join(path.posix.dirname(rel), m[1]!));
      return [rel, targets.filter(isTestCode)] as const;
    }),
  );
  const touches = new Map<string, boolean>();
  const reaches = (rel: string): boolean => {
    if (rel === DATABASE_MODULE) return true;
    const known = touches.get(rel);
    if (known !== undefined) return known;
    touches.set(rel, false); // a cycle adds nothing
    const result = (edges.get(rel) ?? []).some(reaches);
    touches.set(rel, result);
    return result;
  };
  return files.filter((rel) => rel.endsWith('.test.ts') && reaches(rel));
}
