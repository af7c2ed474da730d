#!/usr/bin/env node
// Runs a TypeScript entry point through tsx's loader: `node bin/run-ts.js path/to/file.ts [args]`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

register();
const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: run-ts <file.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], path.resolve(entry), ...rest];
await import(pathToFileURL(path.resolve(entry)).href);
