/**
 * Exporting a list as CSV: a header (email, first_name, last_name, phone_number, status, created_at, then one column
 * per custom field of the account) and one line per member, read in batches of 1,000 by keyset and streamed through
 * csv-stringify, so memory does not grow with the list. Cells are formula-safe, as every CSV export is.
 */
import { Readable } from 'node:stream';
import type * as CsvStringify from 'csv-stringify';
import type { AppContext } from '../../context.ts';
import { requireList } from '../lists/lists.service.ts';
import { fieldTypesOf, fieldValuesOfMany, membersAfter } from './csv.repository.ts';
import { onFirstUse } from '../../on-first-use.ts';
import { formulaSafe } from '../../forms/submissions/exports.ts';

const csvStringify = onFirstUse<typeof CsvStringify>('csv-stringify');

const BATCH = 1000;

/** The fixed columns of an export (and the names an import maps to without being told). */
export const EXPORT_COLUMNS = [
  'email',
  'first_name',
  'last_name',
  'phone_number',
  'status',
  'created_at',
] as const;

/** A list's members as a CSV stream, with the list's name for the file name. */
export async function exportListCsv(
  ctx: AppContext,
  customerId: number,
  rawListId: string,
): Promise<{ name: string; stream: NodeJS.ReadableStream }> {
  const db = ctx.database.reader;
  const list = await requireList(db, customerId, rawListId);
  const types = await fieldTypesOf(db, customerId);
  async function* lines(): AsyncGenerator<string[]> {
    yield [...EXPORT_COLUMNS, ...types.map((t) => t.name)].map(formulaSafe);
    let after = 0;
    for (;;) {
      const rows = await membersAfter(db, list.id, after, BATCH);
      if (rows.length === 0) return;
      const values = await fieldValuesOfMany(
        db,
        rows.map((r) => r.id),
      );
      for (const r of rows) {
        const status =
          r.unsubscribed === 1
            ? 'unsubscribed'
            : r.member_unsubscribed === 1
              ? 'unsubscribed_from_list'
              : 'subscribed';
        const f = values.get(r.id);
        yield [
          r.email,
          r.first_name ?? '',
          r.last_name ?? '',
          r.phone_number ?? '',
          status,
          new Date(r.created_at).toISOString(),
          ...types.map((t) => f?.get(t.id) ?? ''),
        ].map(formulaSafe);
      }
      after = rows[rows.length - 1]!.id;
    }
  }
  return { name: list.name, stream: Readable.from(lines()).pipe(csvStringify().stringify()) };
}
