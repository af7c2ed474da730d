/** The `sealpost` command: start, migrate, and administration (accounts, domains, keys, webhook endpoints). */
import { Command } from 'commander';
import { action, output, withContext } from './cli-support.ts';
import { accountCommand, domainCommand, keyCommand } from './admin-commands.ts';
import { capturedCommand } from './captured-commands.ts';
import { webhookCommand } from './webhook-commands.ts';
import { userCommand } from './user-commands.ts';
import { subscribersCommand } from './subscriber-commands.ts';
import { backupCommand, doctorCommand, healthCommand, moveCommand, restoreCommand } from './ops-commands.ts';
import { suppressionCommand } from './suppression-commands.ts';
import { loadConfig } from '../config/load.ts';
import { createLogger, openContext } from '../runtime.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { buildCommit, markRequiredOptions, packageVersion } from './cli-help.ts';
import {
  checkMasterKeyOpensData,
  checkPortsFree,
  checkStartable,
  explainStartFailure,
} from './start-checks.ts';

const program = new Command('sealpost')
  .description('Sealpost: forms, transactional email and marketing for sensitive mail')
  .version(packageVersion(), '-V, --version', 'print the version of sealpost')
  .showHelpAfterError();

program
  .command('start')
  .description('start the service (all roles unless --roles is given)')
  .option('--roles <list>', 'comma-separated subset of: api, worker, smtp')
  .action(
    action(async (o: { roles?: string }) => {
      const { parseRoles, startRoles } = await import('../app/roles.ts');
      const config = loadConfig();
      const roles = parseRoles(o.roles ?? config.roles);
      await checkStartable(config);
      await checkPortsFree(config, roles);
      const log = createLogger(config);
      const ctx = await openContext(config, log).catch((err: unknown) =>
        Promise.reject(explainStartFailure(err, config)),
      );
      await checkMasterKeyOpensData(config, ctx.database.db).catch(async (err: unknown) => {
        await ctx.database.close();
        throw err;
      });
      log.info(
        { roles, database: ctx.database.dialect, version: packageVersion(), commit: buildCommit() },
        'starting sealpost',
      );
      const running = await startRoles(ctx, roles).catch((err: unknown) =>
        Promise.reject(explainStartFailure(err, config)),
      );
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info({ signal }, 'shutting down: draining in-flight work');
        const force = setTimeout(() => {
          log.error('shutdown timed out; exiting');
          process.exit(1);
        }, config.shutdownTimeoutMs + 5000);
        force.unref();
        void running
          .stop()
          .then(() => ctx.database.close())
          .then(() => {
            log.info('stopped');
            log.flush();
            process.exit(0);
          });
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
    }),
  );

program
  .command('migrate')
  .description('apply pending database migrations')
  .option('--json', 'print JSON')
  .action(
    action(async (o: { json?: boolean }) => {
      const applied = await withContext((ctx) => migrateToLatest(ctx.database), { migrate: false });
      output(o.json, { applied }, applied.length ? `applied: ${applied.join(', ')}` : 'schema is current');
    }),
  );

program.addCommand(accountCommand());
program.addCommand(domainCommand());
program.addCommand(keyCommand());
program.addCommand(capturedCommand());
program.addCommand(webhookCommand());
program.addCommand(userCommand());
program.addCommand(subscribersCommand());
program.addCommand(backupCommand());
program.addCommand(restoreCommand());
program.addCommand(doctorCommand());
program.addCommand(healthCommand());
program.addCommand(moveCommand());
program.addCommand(suppressionCommand());

markRequiredOptions(program);
await program.parseAsync(process.argv);
