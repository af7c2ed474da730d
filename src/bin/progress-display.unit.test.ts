/** The move's progress display: a bar redrawn in place on a terminal, plain lines elsewhere. */
import { describe, expect, it } from 'vitest';
import { progressDisplay } from './progress-display.ts';
import type { MoveProgress } from '../ops/move-to-postgres.ts';

function stream(tty: boolean) {
  const written: string[] = [];
  return {
    written,
    out: { isTTY: tty, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream,
  };
}

const at = (done: number, total = 40): MoveProgress => ({
  phase: 'copy',
  table: 'messages',
  index: 3,
  tables: 12,
  done,
  total,
});

describe('move progress display', () => {
  it('draws a bar redrawn in place on a terminal, ending the line when the table is done', () => {
    const s = stream(true);
    const d = progressDisplay(s.out);
    d.update(at(10));
    d.update(at(40));
    d.end();
    expect(s.written).toEqual([
      '\r\x1b[2Kcopying 3/12 messages [#######---------------------] 25% 10/40 rows',
      '\r\x1b[2Kcopying 3/12 messages [############################] 100% 40/40 rows',
      '\n',
    ]);
  });

  it('writes plain lines without a terminal', () => {
    const s = stream(false);
    const d = progressDisplay(s.out);
    d.update(at(0));
    d.update(at(10));
    d.update(at(40));
    d.end();
    expect(s.written).toEqual([
      'copying 3/12 messages 0% 0/40 rows\n',
      'copying 3/12 messages 100% 40/40 rows\n',
    ]);
  });
});
