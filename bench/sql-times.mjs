/**
 * Preloaded into a service a benchmark starts when `BENCH_SQL_TIMES_DIR` is set (`node --import`): times every
 * statement run through better-sqlite3 (run, get, all, iterate; not the prepare) and writes, per process, the statements
 * by the total time spent running them into `sql-times.<pid>.txt` in that folder, every few seconds and at exit. The
 * time is the main thread's: SQLite runs there. Statements differing only in their number of `?` count apart.
 */
import fs from 'node:fs';
import path from 'node:path';
import Module from 'node:module';

const dir = process.env.BENCH_SQL_TIMES_DIR;
const totals = new Map();
/** Runs longer than this are counted apart (a checkpoint inside a commit, a scan). */
const SLOW_NS = 2_000_000n;
const originalLoad = Module._load;
let patched = false;

Module._load = function load(request, ...rest) {
  const loaded = originalLoad.call(this, request, ...rest);
  if (!patched && /better-sqlite3/.test(request) && typeof loaded === 'function') {
    patched = true;
    const prepare = loaded.prototype.prepare;
    loaded.prototype.prepare = function timedPrepare(source, ...rest) {
      const statement = prepare.call(this, source, ...rest);
      const key = String(source).replace(/\s+/g, ' ').trim();
      for (const method of ['run', 'get', 'all', 'iterate']) {
        const original = statement[method];
        if (typeof original !== 'function') continue;
        statement[method] = function timed(...args) {
          const start = process.hrtime.bigint();
          try {
            return original.apply(this, args);
          } finally {
            const t = totals.get(key) ?? { count: 0, ns: 0n, slow: 0, slowNs: 0n };
            const ns = process.hrtime.bigint() - start;
            t.count++;
            t.ns += ns;
            if (ns > SLOW_NS) {
              t.slow++;
              t.slowNs += ns;
            }
            totals.set(key, t);
          }
        };
      }
      return statement;
    };
  }
  return loaded;
};

function write() {
  if (!dir || totals.size === 0) return;
  const rows = [...totals].sort((a, b) => Number(b[1].ns - a[1].ns));
  const all = rows.reduce((sum, [, t]) => sum + t.ns, 0n);
  const lines = [
    `total ${(Number(all) / 1e6).toFixed(0)} ms in ${rows.length} statements`,
    'ms\tcount\tµs each\tover 2 ms (count, ms)\tstatement',
  ];
  for (const [sql, t] of rows)
    lines.push(
      [
        (Number(t.ns) / 1e6).toFixed(0),
        t.count,
        (Number(t.ns) / 1e3 / t.count).toFixed(1),
        `${t.slow}, ${(Number(t.slowNs) / 1e6).toFixed(0)}`,
        sql.slice(0, 300),
      ].join('\t'),
    );
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `sql-times.${process.pid}.txt`), `${lines.join('\n')}\n`);
}

setInterval(write, 3000).unref();
process.on('exit', write);
