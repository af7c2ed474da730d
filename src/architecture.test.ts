/**
 * The direction of imports between the top-level folders of `src/`, as ARCHITECTURE.md draws it: a folder imports
 * folders of lower layers, a few named sideways arrows within a layer, and nothing above it except the upward imports
 * listed (and justified in ARCHITECTURE.md). Tests and the test harness may import anything; they are not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(fileURLToPath(import.meta.url));

/** Layers from the bottom up. `(root)` is the files directly under src/ (the context and how it is opened). */
const LAYERS: { name: string; folders: string[] }[] = [
  { name: 'foundation', folders: ['config', 'errors', 'threads', 'markup'] },
  { name: 'platform', folders: ['crypto', 'db'] },
  { name: 'context', folders: ['(root)'] },
  { name: 'services', folders: ['jobs', 'audit', 'accounts', 'delivery'] },
  { name: 'kernel', folders: ['mail', 'http'] },
  { name: 'events', folders: ['webhooks'] },
  { name: 'transactional mail', folders: ['email'] },
  { name: 'doors and engagement', folders: ['smtp', 'tracking', 'forms', 'users'] },
  { name: 'marketing', folders: ['marketing'] },
  { name: 'pages', folders: ['web'] },
  { name: 'composition', folders: ['app', 'console', 'ops'] },
  { name: 'entry points', folders: ['bin'] },
];

/** Arrows allowed between folders of the same layer. */
const SIDEWAYS: [from: string, to: string][] = [
  ['crypto', 'config'],
  ['db', 'config'],
  ['delivery', 'jobs'],
  ['accounts', 'audit'],
  ['jobs', 'audit'],
  ['http', 'mail'],
  ['app', 'console'],
];

/** Imports that point up, each named `from-file -> to-file` and justified in ARCHITECTURE.md. At most four. */
const UPWARD: string[] = [];

/** Folders that are test support, free to import anything. */
const TEST_FOLDERS = new Set(['test']);
const isTestFile = (rel: string) => /\.test(-support)?\.ts$/.test(rel) || rel.split('/').includes('fixtures');

const rank = new Map(LAYERS.flatMap((layer, i) => layer.folders.map((f) => [f, i] as const)));
const folderOf = (rel: string) => (rel.includes('/') ? rel.split('/')[0]! : '(root)');

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

/** Every import between two top-level folders of production code, as `from-file -> to-file`. */
function crossImports(): { from: string; to: string; edge: string }[] {
  const out: { from: string; to: string; edge: string }[] = [];
  for (const rel of sourceFiles()) {
    if (isTestFile(rel) || TEST_FOLDERS.has(folderOf(rel))) continue;
    const text = readFileSync(path.join(SRC, rel), 'utf8');
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.\.?\/[^'"]+)['"]/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[1]!));
      const [from, to] = [folderOf(rel), folderOf(target)];
      if (from !== to) out.push({ from, to, edge: `${rel} -> ${target}` });
    }
  }
  return out;
}

/** The loops in a graph of folder arrows, each as `a -> b -> a`. */
function cyclesOf(arrows: { from: string; to: string }[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of arrows) next.set(from, (next.get(from) ?? new Set()).add(to));
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, trail: string[]) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(node)), node].join(' -> '));
      return;
    }
    state.set(node, 'open');
    for (const to of next.get(node) ?? []) visit(to, [...trail, node]);
    state.set(node, 'done');
  };
  for (const node of next.keys()) visit(node, []);
  return cycles;
}

const imports = crossImports();

describe('import direction between top-level folders', () => {
  it('places every top-level folder in a layer', () => {
    const folders = new Set(sourceFiles().map(folderOf));
    const unplaced = [...folders].filter((f) => !rank.has(f) && !TEST_FOLDERS.has(f));
    expect(
      unplaced,
      'add the new folder to LAYERS in src/architecture.test.ts and to ARCHITECTURE.md',
    ).toEqual([]);
  });

  it('points every import down, sideways only where allowed, up only where listed', () => {
    const sideways = new Set(SIDEWAYS.map(([a, b]) => `${a}>${b}`));
    const wrong = imports
      .filter(({ from, to, edge }) => {
        const [a, b] = [rank.get(from)!, rank.get(to)!];
        if (b < a) return false;
        if (b === a) return !sideways.has(`${from}>${to}`);
        return !UPWARD.includes(edge);
      })
      .map((i) => i.edge);
    expect(
      wrong,
      'see the layers in ARCHITECTURE.md; move the shared piece down, or hand it in from app/',
    ).toEqual([]);
  });

  it('keeps the upward imports few and current', () => {
    expect(UPWARD.length).toBeLessThanOrEqual(4);
    const present = new Set(imports.map((i) => i.edge));
    expect(
      UPWARD.filter((edge) => !present.has(edge)),
      'remove listed upward imports that no longer exist',
    ).toEqual([]);
  });

  it('has no cycle between top-level folders', () => {
    expect(cyclesOf(imports)).toEqual([]);
  });
});

/**
 * Inside a feature folder the subfolders are ranked the same way, bottom first. The files directly in the folder are
 * shared helpers at the bottom, except its `*.worker.ts`, which composes the subfolders' work and sits on top.
 */
const SUBFOLDER_RANKS: Record<string, string[][]> = {
  marketing: [
    ['lists'],
    ['segments'],
    ['subscribers'],
    ['account', 'settings'],
    ['subscriptions', 'mailings'],
    ['deliveries'],
    ['campaigns', 'drips', 'optin'],
    ['analytics', 'exports', 'imports'],
  ],
  forms: [['components'], ['definitions'], ['submissions'], ['hosted']],
};
const SHARED = '(shared)';
const COMPOSITION = '(composition)';

/** The subfolder a file of a ranked feature folder belongs to, or the shared helpers and the worker around them. */
function subfolderOf(rel: string): string {
  const parts = rel.split('/');
  if (parts.length > 2) return parts[1]!;
  return rel.endsWith('.worker.ts') ? COMPOSITION : SHARED;
}

/** Every import between two subfolders of one ranked feature folder, in production code. */
function subfolderImports(feature: string): { from: string; to: string; target: string; edge: string }[] {
  const out: { from: string; to: string; target: string; edge: string }[] = [];
  for (const rel of sourceFiles(path.join(SRC, feature))) {
    if (isTestFile(rel)) continue;
    const text = readFileSync(path.join(SRC, rel), 'utf8');
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.\.?\/[^'"]+)['"]/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[1]!));
      if (folderOf(target) !== feature) continue;
      const [from, to] = [subfolderOf(rel), subfolderOf(target)];
      if (from !== to) out.push({ from, to, target, edge: `${rel} -> ${target}` });
    }
  }
  return out;
}

describe.each(Object.entries(SUBFOLDER_RANKS))(
  'import direction between subfolders of %s/',
  (feature, ranks) => {
    const subRank = new Map<string, number>([
      [SHARED, -1],
      ...ranks.flatMap((group, i) => group.map((f) => [f, i] as const)),
      [COMPOSITION, ranks.length],
    ]);
    const edges = subfolderImports(feature);

    it('places every subfolder in a rank', () => {
      const subfolders = new Set(sourceFiles(path.join(SRC, feature)).map(subfolderOf));
      expect(
        [...subfolders].filter((f) => !subRank.has(f)),
        'add the new subfolder to SUBFOLDER_RANKS in src/architecture.test.ts and to ARCHITECTURE.md',
      ).toEqual([]);
    });

    it('has no cycle between subfolders', () => {
      expect(cyclesOf(edges)).toEqual([]);
    });

    it('points every import at a lower rank', () => {
      const wrong = edges.filter(({ from, to }) => subRank.get(to)! >= subRank.get(from)!).map((i) => i.edge);
      expect(wrong, 'move the shared piece down to its owner, or hand it in from the rank above').toEqual([]);
    });

    it("reaches another subfolder's tables through its service, never its repository", () => {
      const wrong = edges
        .filter(({ to, target }) => to !== SHARED && target.endsWith('.repository.ts'))
        .map((i) => i.edge);
      expect(wrong, "call (or add) a function of the owner's service").toEqual([]);
    });
  },
);

describe('where SQL lives', () => {
  const SQL = /\.(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql[`<]/;
  /** Repositories, migrations and the database platform itself (connections, precompiled queries, the ping). */
  const allowed = (rel: string) => rel.endsWith('.repository.ts') || rel.startsWith('db/');

  it('keeps every query in a repository or a migration', () => {
    const outside = sourceFiles().filter(
      (rel) =>
        !isTestFile(rel) &&
        !TEST_FOLDERS.has(folderOf(rel)) &&
        !allowed(rel) &&
        SQL.test(readFileSync(path.join(SRC, rel), 'utf8')),
    );
    expect(outside, 'move the query into the owning module’s *.repository.ts').toEqual([]);
  });
});

describe('background work', () => {
  it('is registered from one *.worker.ts module per feature', () => {
    const text = readFileSync(path.join(SRC, 'app/workers.ts'), 'utf8');
    const features = [...text.matchAll(/from '\.\.\/([^']+)'/g)]
      .map((m) => m[1]!)
      .filter((p) => !p.startsWith('jobs/') && p !== 'context.ts');
    expect(features.filter((p) => !p.endsWith('.worker.ts'))).toEqual([]);
  });
});
