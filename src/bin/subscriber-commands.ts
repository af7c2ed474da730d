/**
 * `sealpost subscribers import|export`: the CSV import and export of the console from the command line. An import runs
 * in this process (the same pass the worker runs), printing its progress; `--dry-run` only reports what would change.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Command } from 'commander';
import { action, output, withContext } from './cli-support.ts';
import { getAccount } from '../accounts/accounts.service.ts';
import { AppError } from '../errors/app-error.ts';
import { exportListCsv } from '../marketing/subscribers/csv-export.ts';
import { runImport } from '../marketing/imports/import.run.ts';
import {
  importOf,
  startImport,
  uploadImport,
  type ImportField,
  type ImportMapping,
} from '../marketing/imports/imports.service.ts';

/** The `sealpost subscribers` command. */
export function subscribersCommand(): Command {
  const cmd = new Command('subscribers').description('import and export subscribers as CSV');
  cmd
    .command('import')
    .description('import subscribers from a CSV file with a header line into a list')
    .requiredOption('--account <username>', 'account username or customer_id')
    .requiredOption('--list <id>', 'subscription list id')
    .option(
      '--map <pairs>',
      'column=field pairs, comma-separated (field: email, first_name, last_name, custom, ignore); by default guessed from the header',
    )
    .option('--dry-run', 'report what would change without writing')
    .option('--json', 'print JSON')
    .argument('<file>', 'the CSV file')
    .action(
      action(
        async (
          file: string,
          o: { account: string; list: string; map?: string; dryRun?: boolean; json?: boolean },
        ) => {
          const result = await withContext(async (ctx) => {
            const account = await getAccount(ctx.database.db, o.account);
            const up = await uploadImport(ctx, account.customer_id, {
              listId: o.list,
              fileName: path.basename(file),
              source: createReadStream(file),
              createdBy: 'command line',
            });
            const mapping = o.map ? parseMap(o.map, up.columns) : up.mapping;
            await startImport(ctx, account.customer_id, up.id, mapping, Boolean(o.dryRun), false);
            await runImport(ctx, Number(up.id), (row) => {
              if (!o.json) process.stderr.write(`\r${row.rows_done} rows, ${row.failed} rejected`);
            });
            if (!o.json) process.stderr.write('\n');
            return importOf(ctx, account.customer_id, up.id);
          });
          const verb = o.dryRun ? 'would add' : 'added';
          output(
            o.json,
            result,
            `import ${result.id} ${result.state}: ${result.rows_done} rows, ${verb} ${result.added}, ${o.dryRun ? 'would update' : 'updated'} ${result.updated}, rejected ${result.failed}${result.error ? ` (${result.error})` : ''}`,
          );
        },
      ),
    );
  cmd
    .command('export')
    .description('export the members of a list as CSV (to a file, or to standard output)')
    .requiredOption('--account <username>', 'account username or customer_id')
    .requiredOption('--list <id>', 'subscription list id')
    .argument('[file]', 'where to write; standard output when absent')
    .action(
      action(async (file: string | undefined, o: { account: string; list: string }) => {
        await withContext(async (ctx) => {
          const account = await getAccount(ctx.database.db, o.account);
          const out = await exportListCsv(ctx, account.customer_id, o.list);
          await pipeline(out.stream, file ? createWriteStream(file) : process.stdout);
        });
      }),
    );
  return cmd;
}

function parseMap(text: string, columns: string[]): ImportMapping {
  const out: ImportMapping = {};
  for (const pair of text.split(',')) {
    const [col, field] = pair.split('=').map((s) => s.trim());
    const index = columns.findIndex((c) => c.toLowerCase() === (col ?? '').toLowerCase());
    if (index < 0)
      throw new AppError(
        'marketing.import_invalid',
        `the file has no column "${col ?? ''}"; its columns are ${columns.join(', ')}`,
      );
    if (field !== 'ignore') out[index] = field as ImportField;
  }
  return out;
}
