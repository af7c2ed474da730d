#!/usr/bin/env node
// Compiles the `sealpost` command once into dist/sealpost.js (one ES module; packages stay in node_modules), so a start
// loads plain JavaScript instead of transpiling TypeScript. Run by `npm install` (the `prepare` script) and, when the
// sources are newer than the build, by bin/sealpost.js itself. Written to a temporary file and renamed, so processes
// starting at the same time never load half a file.
import { build } from 'esbuild';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUTFILE = path.join(ROOT, 'dist', 'sealpost.js');

/** Builds dist/sealpost.js from src/bin/sealpost.ts. */
export async function buildCommand() {
  const result = await build({
    entryPoints: [path.join(ROOT, 'src/bin/sealpost.ts')],
    outfile: OUTFILE,
    write: false,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'error',
  });
  mkdirSync(path.dirname(OUTFILE), { recursive: true });
  // The map first, the module last: a module that is in place always has its map.
  const files = [...result.outputFiles].sort((a, b) => (a.path === OUTFILE) - (b.path === OUTFILE));
  for (const file of files) {
    const tmp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(tmp, file.contents);
    renameSync(tmp, file.path);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildCommand();
