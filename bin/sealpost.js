#!/usr/bin/env node
// The `sealpost` command. It runs dist/sealpost.js, compiled from the TypeScript sources by `npm install`; when a source
// file is newer than that build (a checkout being worked on), it compiles again first, which takes well under a second.
// Without esbuild it falls back to transpiling on the fly through tsx. On Node 22.1 and later, V8's compile cache keeps
// the compiled code of the build and its packages between starts (Node 20 has no such cache and compiles each time).
import module from 'node:module';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { OUTFILE, ROOT, buildCommand } from './build.js';

/** The newest modification time of any file under `dir`. */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const time = entry.isDirectory() ? newest(full) : statSync(full).mtimeMs;
    if (time > latest) latest = time;
  }
  return latest;
}

function builtTime() {
  try {
    return statSync(OUTFILE).mtimeMs;
  } catch {
    return 0;
  }
}

module.enableCompileCache?.();

let entry = pathToFileURL(OUTFILE).href;
if (builtTime() < newest(path.join(ROOT, 'src'))) {
  try {
    await buildCommand();
  } catch {
    const { register } = await import('tsx/esm/api');
    register();
    entry = pathToFileURL(path.join(ROOT, 'src/bin/sealpost.ts')).href;
  }
}
await import(entry);
