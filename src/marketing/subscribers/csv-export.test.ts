/**
 * The list export (the console's download and `sealpost subscribers export`, both `exportListCsv`): a cell that a
 * spreadsheet would run as a formula, including the full-width starters, is prefixed with ' like every CSV export.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestBed } from '../../console/console.test-support.ts';
import { marketingClient, makeList, makeSubscriber } from '../marketing.test-support.ts';
import { exportListCsv } from './csv-export.ts';
import { csvCell } from '../../forms/submissions/exports.ts';

const {
  t,
  a,
  clients: [viewer],
} = consoleTestBed(['viewer']);
const STARTERS = ['=1+1', '+SUM(A1)', '-2+3', '@cmd', '＝HYPERLINK("x")', '＋1', '－1', '＠A1'];
let listId: string;

beforeAll(async () => {
  const call = marketingClient(t, a);
  listId = await makeList(call, 'Formulas');
  for (const [i, name] of STARTERS.entries())
    await makeSubscriber(call, `p${i}@example.org`, { first_name: name, last_name: 'Plain' }, listId);
});

/** The first_name cells of a CSV export, as written. */
function firstNames(csv: string): string[] {
  return csv
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((line) => /^[^,]*,("(?:[^"]|"")*"|[^,]*)/.exec(line)![1]!.replace(/^"|"$/g, '').replace(/""/g, '"'));
}

describe('formula cells in list exports', () => {
  it('prefixes every formula starter in the console download', async () => {
    const res = await viewer.get(`/console/audiences/lists/${listId}/export.csv`);
    expect(res.statusCode).toBe(200);
    expect(firstNames(res.body).sort()).toEqual(STARTERS.map((s) => `'${s}`).sort());
    expect(res.body).toContain('Plain');
  });

  it('prefixes them in the stream the command line writes', async () => {
    const out = await exportListCsv(t.ctx, a.account.customer_id, listId);
    let csv = '';
    for await (const chunk of out.stream) csv += String(chunk);
    expect(firstNames(csv).sort()).toEqual(STARTERS.map((s) => `'${s}`).sort());
  });

  it('treats the full-width starters alike in the shared cell writer', () => {
    expect(csvCell('＝1')).toBe(`"'＝1"`);
    expect(csvCell('Ｘ=1')).toBe('"Ｘ=1"');
  });
});
