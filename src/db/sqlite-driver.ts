/**
 * The SQLite driver for this Node.js, in a module of its own so the checkpoint thread (checkpoint-thread.ts) loads the
 * driver without the rest of the database layer.
 */
import { createRequire } from 'node:module';
import type SQLite from 'better-sqlite3';

const load = createRequire(import.meta.url);

/**
 * The SQLite driver for this Node.js. better-sqlite3 12 and 13 share one API; 13 (Node-API) is used from Node 22 on,
 * because 12's statement destructors can abort the process under Node 24 when a statement is collected outside a
 * Node context (at exit, notably); 13 does not load on Node 20, where 12 is used.
 */
export function sqliteDriver(): typeof SQLite {
  const major = Number(process.versions.node.split('.')[0]);
  return (major >= 22 ? load('better-sqlite3-napi') : load('better-sqlite3')) as typeof SQLite;
}
