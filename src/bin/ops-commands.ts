/**
 * Operational commands: `backup`, `restore` (and `doctor`, `move-to-postgres`). Each loads its implementation when it
 * runs, so `sealpost start` does not load the PostgreSQL copy streams or the doctor's SMTP client.
 */
import { Command } from 'commander';
import { action, output } from './cli-support.ts';
import { loadConfig } from '../config/load.ts';
import type { BackupReport } from '../ops/backup.ts';
import type { MoveReport } from '../ops/move-to-postgres.ts';
import { OpsError } from '../ops/ops-error.ts';
import { progressDisplay } from './progress-display.ts';
import { promises as dns } from 'node:dns';

/** The line that reminds of, and reports on, the master key. */
function keyLines(r: BackupReport): string {
  const k = r.masterKey;
  const verdict =
    k.result === 'ok'
      ? 'it decrypts the data in this copy'
      : k.result === 'nothing-sealed'
        ? 'nothing encrypted to check it against yet'
        : 'WARNING: it does NOT decrypt the data in this copy';
  return (
    `master key: ${k.source} (fingerprint ${k.fingerprint}): ${verdict}.\n` +
    'The backup does not contain the master key. Keep a copy of it apart from the backup: without it, message bodies, ' +
    'attachments and form submissions in the backup cannot be decrypted.'
  );
}

/** `sealpost backup --out <file>` */
export function backupCommand(): Command {
  return new Command('backup')
    .description(
      'copy the embedded database to a file while the service runs, and check the master key against it',
    )
    .requiredOption('--out <file>', 'the backup file to write (must not exist)')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { out: string; json?: boolean }) => {
        const { backupDatabase } = await import('../ops/backup.ts');
        const r = await backupDatabase(loadConfig(), o.out);
        output(
          o.json,
          r,
          `backed up ${r.bytes} bytes to ${r.file} in ${r.ms} ms (schema ${r.schema})\n${keyLines(r)}`,
        );
        if (r.masterKey.result === 'mismatch') process.exitCode = 1;
      }),
    );
}

/** `sealpost restore --from <file>` */
export function restoreCommand(): Command {
  return new Command('restore')
    .description('replace the embedded database with a backup (stop the service first)')
    .requiredOption('--from <file>', 'the backup file made by `sealpost backup`')
    .option('--force', 'restore even though a running service seems to hold the database')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { from: string; force?: boolean; json?: boolean }) => {
        const { restoreDatabase } = await import('../ops/backup.ts');
        const r = await restoreDatabase(loadConfig(), o.from, { force: o.force });
        const kept = r.previous ? `\nthe database it replaced is kept as ${r.previous}` : '';
        output(o.json, r, `restored ${r.file} from ${o.from} (schema ${r.schema})${kept}\n${keyLines(r)}`);
      }),
    );
}

/** `sealpost doctor` */
export function doctorCommand(): Command {
  return new Command('doctor')
    .description(
      'check configuration, database, disk, master key, TLS certificate, relay and DNS; exit 1 on a failure',
    )
    .option('--json', 'print JSON')
    .action(
      action(async (o: { json?: boolean }) => {
        const { reportTable, runDoctor } = await import('../ops/doctor.ts');
        const report = await runDoctor(loadConfig(), { resolver: dns });
        output(o.json, report, reportTable(report));
        if (report.some((c) => c.status === 'fail')) process.exitCode = 1;
      }),
    );
}

/** `sealpost move-to-postgres --to <url>` */
export function moveCommand(): Command {
  return new Command('move-to-postgres')
    .description(
      'copy the embedded database into an empty PostgreSQL database (resumable; verified by row counts and checksums)',
    )
    .requiredOption('--to <url>', 'the PostgreSQL database to fill, postgres://user:password@host:5432/name')
    .option('--batch-size <rows>', 'rows per batch and transaction', '5000')
    .option('--force', 'move even though a running service seems to hold the embedded database')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { to: string; batchSize: string; force?: boolean; json?: boolean }) => {
        const batchSize = Number(o.batchSize);
        if (!Number.isInteger(batchSize) || batchSize < 1)
          throw new OpsError('--batch-size must be a whole number of at least 1');
        const stop = new AbortController();
        const interrupt = () => stop.abort();
        process.once('SIGINT', interrupt);
        process.once('SIGTERM', interrupt);
        const { moveToPostgres } = await import('../ops/move-to-postgres.ts');
        const display = progressDisplay(process.stderr);
        const r = await moveToPostgres(loadConfig(), o.to, {
          batchSize,
          force: o.force,
          signal: stop.signal,
          onProgress: (p) => display.update(p),
        }).finally(() => display.end());
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
        output(o.json, r, moveText(r));
        if (r.status === 'interrupted') process.exitCode = 3;
      }),
    );
}

/** The human summary of a move. */
function moveText(r: MoveReport): string {
  if (r.status === 'interrupted')
    return `interrupted: the rows copied so far are kept in ${r.target}; run the same command again to continue`;
  const tables = r.tables.map((t) => `  ${t.table.padEnd(32)} ${String(t.rows).padStart(10)}  ${t.checksum}`);
  return [
    `moved ${r.rows} rows in ${r.tables.length} tables to ${r.target} in ${r.ms} ms${r.resumed ? ' (continued an earlier run)' : ''}; row counts and checksums match:`,
    ...tables,
    `master key: ${r.masterKey.source} (fingerprint ${r.masterKey.fingerprint}).`,
    'To run on PostgreSQL, give every node SEALPOST_DATABASE_URL (that database) and SEALPOST_MASTER_KEY set to this',
    'key: the contents of master.key when it came from the data directory. Another key cannot open the moved data.',
  ].join('\n');
}

/** `sealpost health`: probes the roles this process runs (SEALPOST_ROLES, or --roles); exit 1 when one is down. */
export function healthCommand(): Command {
  return new Command('health')
    .description(
      'check that the roles of this node answer (for container health checks); exit 1 when one does not',
    )
    .option('--roles <list>', 'comma-separated subset of: api, worker, smtp (default: SEALPOST_ROLES)')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { roles?: string; json?: boolean }) => {
        const { parseRoles } = await import('../app/roles.ts');
        const { checkHealth, healthText } = await import('../ops/health.ts');
        const config = loadConfig();
        const results = await checkHealth(config, parseRoles(o.roles ?? config.roles));
        output(o.json, results, healthText(results));
        if (results.some((r) => !r.ok)) process.exitCode = 1;
      }),
    );
}
