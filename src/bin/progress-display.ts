/** Shows a move's progress: a bar redrawn in place on a terminal, plain lines (at most one per table and second) otherwise. */
import type { MoveProgress } from '../ops/move-to-postgres.ts';

const WIDTH = 28;

/** One progress line: phase, table, bar, percentage and counts. */
export function progressLine(p: MoveProgress, bar: boolean): string {
  const share = p.total === 0 ? 1 : Math.min(1, p.done / p.total);
  const filled = Math.round(share * WIDTH);
  const drawn = bar ? ` [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}]` : '';
  const verb = p.phase === 'copy' ? 'copying' : 'verifying';
  return `${verb} ${p.index}/${p.tables} ${p.table}${drawn} ${Math.floor(share * 100)}% ${p.done}/${p.total} rows`;
}

/** A progress callback writing to `out`: a bar on a TTY, otherwise a line per table and phase at start, end and each second. */
export function progressDisplay(out: NodeJS.WriteStream): {
  update(p: MoveProgress): void;
  end(): void;
} {
  const tty = Boolean(out.isTTY);
  let lastKey = '';
  let lastAt = 0;
  let drawn = false;
  return {
    update(p) {
      const key = `${p.phase}:${p.table}`;
      const now = Date.now();
      const finished = p.done >= p.total;
      if (tty) {
        if (key === lastKey && !finished && now - lastAt < 100) return;
        out.write(`\r\x1b[2K${progressLine(p, true)}`);
        drawn = true;
        if (finished && p.phase === 'copy') {
          out.write('\n');
          drawn = false;
        }
      } else {
        if (key === lastKey && !finished && now - lastAt < 1000) return;
        if (key === lastKey && finished && p.done === 0) return;
        out.write(`${progressLine(p, false)}\n`);
      }
      lastKey = key;
      lastAt = now;
    },
    end() {
      if (tty && drawn) out.write('\n');
    },
  };
}
