#!/usr/bin/env node
// Compiles the `sealpost` command once into dist/ (ES modules; packages stay in node_modules, but for those named in
// BUNDLED), so a start loads plain JavaScript instead of transpiling TypeScript. Run by `npm install` (the `prepare`
// script) and, when the sources are newer than the build, by bin/sealpost.js itself. Modules the sources import with
// `import()` become chunks of their own in dist/chunks/, parsed only when first used, so `sealpost start` does not load
// what only another command or a rarely used feature needs. Chunks are named by their content and written before the
// entry file, which is written to a temporary file and renamed: processes starting at the same time never load half a
// build, and a running process still finds the chunks of the build it started from.
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EDITOR_BUILD, EDITOR_BUNDLE, EDITOR_SOURCE } from '../src/console/editor-build.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const CHUNKS = path.join(DIST, 'chunks');
export const OUTFILE = path.join(DIST, 'sealpost.js');
/** The modules of Sealpost's worker threads, each an entry of its own, started from dist/ (src/threads/threads.ts). */
const THREADS = ['delivery/render-thread', 'db/checkpoint-thread'];
/**
 * Packages compiled into the build instead of loaded from node_modules, because a start loads each of them file by file:
 * Kysely and TypeBox (ES modules of about 260 and 200 files), Fastify with the parts it loads at start (its plugin loader
 * and router, and semver, about 50 files), prom-client with its optional tracing API (about 90 files) and the multipart
 * body parser (about 20). None of them looks for files of its own at run time, and no package left in node_modules
 * loads them at run time, so the one copy in the build serves every caller. What they load later (Fastify's schema
 * compilers and `inject`, pino) stays a package, loaded with `require` (the banner below gives each file one).
 */
const BUNDLED = new RegExp(
  `^(${[
    'kysely',
    '@sinclair/typebox',
    'fastify',
    'avvio',
    'find-my-way',
    'semver',
    'prom-client',
    '@opentelemetry/api',
    'tdigest',
    'bintrees',
    '@fastify/multipart',
    '@fastify/busboy',
  ].join('|')})(/|$)`,
);

const REQUIRE_BANNER = [
  "import { createRequire as __sealpostCreateRequire } from 'node:module';",
  'const require = __sealpostCreateRequire(import.meta.url);',
].join('\n');

/** Leaves every other package (and node built-in) to be imported from node_modules at run time. */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]|^\.[^./]|^\.\.[^/]/ }, (args) =>
      BUNDLED.test(args.path) ? undefined : { path: args.path, external: true },
    );
  },
};

/** Chunks no build has named for this long are removed (a process started from an older build may still load them). */
const CHUNK_KEEP_MS = 7 * 24 * 3600_000;

/** Writes a file whole: to a temporary name first, then renamed into place. */
function writeWhole(file, contents) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, file);
}

/** Removes chunks the new build does not name and no build has named for CHUNK_KEEP_MS. */
function pruneChunks(keep) {
  const now = Date.now();
  for (const name of readdirSync(CHUNKS)) {
    const file = path.join(CHUNKS, name);
    if (keep.has(file)) continue;
    try {
      if (now - statSync(file).mtimeMs > CHUNK_KEEP_MS) rmSync(file, { force: true });
    } catch {
      // removed by a build running at the same time
    }
  }
}

/** Builds dist/sealpost.js (and its chunks) from src/bin/sealpost.ts, and each thread's module (dist/render-thread.js, …). */
export async function buildCommand() {
  // Loaded here, not with this module: bin/sealpost.js imports this file on every start, and builds only when sources changed.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: {
      sealpost: path.join(ROOT, 'src/bin/sealpost.ts'),
      ...Object.fromEntries(THREADS.map((t) => [path.basename(t), path.join(ROOT, `src/${t}.ts`)])),
    },
    outdir: DIST,
    chunkNames: 'chunks/[name]-[hash]',
    write: false,
    bundle: true,
    splitting: true,
    plugins: [externalPackages],
    // Compiled CommonJS packages call `require` for Node built-ins and the packages they leave out.
    banner: { js: REQUIRE_BANNER },
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'error',
  });
  mkdirSync(CHUNKS, { recursive: true });
  const entries = [...THREADS.map((t) => path.join(DIST, `${path.basename(t)}.js`)), OUTFILE];
  const isEntry = (file) => entries.some((e) => file.path === e || file.path === `${e}.map`);
  // Chunks first, the entries' maps next, the entries last (the command's own last of all): a module that is in place
  // always has its chunks, its map and its threads' modules.
  const rank = (file) => (isEntry(file) ? 1 + entries.indexOf(file.path) + 1 : 0);
  const files = [...result.outputFiles].sort((a, b) => rank(a) - rank(b));
  const now = new Date();
  for (const file of files) {
    const chunk = !isEntry(file);
    // A chunk's name is its content: one already there is kept (and marked as named by this build).
    if (chunk && statSync(file.path, { throwIfNoEntry: false })?.size === file.contents.length)
      utimesSync(file.path, now, now);
    else writeWhole(file.path, file.contents);
  }
  pruneChunks(new Set(files.map((f) => f.path)));
}

/** Bundles the console's block editor into dist/block-editor.js (src/console/editor-build.js says how). */
export async function buildEditor() {
  const { build } = await import('esbuild');
  const result = await build({
    ...EDITOR_BUILD,
    entryPoints: [path.join(ROOT, EDITOR_SOURCE)],
    write: false,
  });
  mkdirSync(DIST, { recursive: true });
  writeWhole(path.join(ROOT, EDITOR_BUNDLE), result.outputFiles[0].contents);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildEditor();
  await buildCommand();
}
