import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, type ErrorSpec } from './catalogue.ts';
import { AppError } from './app-error.ts';
import { errorBody } from '../http/error-handler.ts';

const DOC = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** The cells of every table row of docs/errors.md whose first cell is a code in backticks. */
const CODE_ROWS = DOC.split('\n')
  .filter((line) => /^\|\s*`[^`]+`\s*\|/.test(line))
  .map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  )
  .filter((cells) => cells.length >= 4);

const ENTRIES = Object.entries(CATALOGUE) as [string, ErrorSpec][];

describe('docs/errors.md', () => {
  it.each(ENTRIES)('documents %s with its status, SMTP reply and title on one row', (code, spec) => {
    const rows = CODE_ROWS.filter((cells) => cells[0] === `\`${code}\``);
    expect(rows, `${code} has one table row`).toHaveLength(1);
    const [, status, smtp, title] = rows[0]!;
    expect(status).toBe(String(spec.status));
    expect(smtp).toBe(`\`${spec.smtp}\``);
    expect(title).toBe(spec.title);
  });

  it('lists no code the catalogue lacks', () => {
    const documented = CODE_ROWS.map((cells) => cells[0]!.replace(/`/g, ''));
    expect(documented.filter((code) => !(code in CATALOGUE))).toEqual([]);
  });

  it('shows the error body with exactly the fields the handler sends, down to each errors[] item', () => {
    const shown = JSON.parse(/## The error body[\s\S]*?```json\n([\s\S]*?)```/.exec(DOC)![1]!) as Record<
      string,
      unknown
    >;
    const sent = errorBody(
      new AppError('request.invalid', 'data.message.headers.subject is required', {
        details: [{ field: 'data.message.headers.subject', message: 'is required' }],
      }),
    );
    expect(Object.keys(shown).sort()).toEqual(Object.keys(sent).sort());
    const item = (body: Record<string, unknown>) => (body.errors as Record<string, unknown>[])[0]!;
    expect(Object.keys(item(shown)).sort()).toEqual(Object.keys(item(sent)).sort());
    expect(item(sent).message).toBe(sent.message);
  });
});
