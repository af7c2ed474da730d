/** `sealpost suppression ...`: the account's suppression list from the command line. */
import { CLI_CHANGE } from '../audit/audit.service.ts';
import { Command } from 'commander';
import { action, output, withContext } from './cli-support.ts';
import { getAccount } from '../accounts/accounts.service.ts';
import {
  addSuppression,
  removeSuppression,
  setSuppressionList,
  suppressionPage,
} from '../accounts/suppressions.service.ts';

/** `sealpost suppression list|add|remove|enable|disable` */
export function suppressionCommand(): Command {
  const cmd = new Command('suppression').description(
    "manage an account's suppression list (hard bounces, complaints)",
  );
  const withAccount = <T>(
    account: string,
    fn: (ctx: Parameters<Parameters<typeof withContext>[0]>[0], id: number) => Promise<T>,
  ) => withContext(async (ctx) => fn(ctx, (await getAccount(ctx.database.db, account)).customer_id));
  cmd
    .command('list')
    .description('list suppressed addresses, newest first')
    .requiredOption('--account <username>', 'account username or customer_id')
    .option('--page <n>', 'page number', '1')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { account: string; page: string; json?: boolean }) => {
        const { suppressions } = await withAccount(o.account, (ctx, id) =>
          suppressionPage(ctx, id, Math.max(1, Number(o.page) || 1)),
        );
        const human = suppressions
          .map((s) => `${s.address}\t${s.reason}\t${s.created_at}\t${s.detail}`)
          .join('\n');
        output(o.json, suppressions, human || 'no suppressed addresses');
      }),
    );
  cmd
    .command('add')
    .description('suppress an address by hand')
    .requiredOption('--account <username>', 'account username or customer_id')
    .requiredOption('--address <email>', 'the address')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { account: string; address: string; json?: boolean }) => {
        const s = await withAccount(o.account, (ctx, id) => addSuppression(ctx, id, o.address));
        output(o.json, s, `suppressed ${s.address} (${s.reason})`);
      }),
    );
  cmd
    .command('remove')
    .description('remove an address, so mail to it is attempted again')
    .requiredOption('--account <username>', 'account username or customer_id')
    .requiredOption('--address <email>', 'the address')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { account: string; address: string; json?: boolean }) => {
        const r = await withAccount(o.account, (ctx, id) => removeSuppression(ctx, id, o.address));
        output(o.json, r, r.message);
      }),
    );
  for (const [name, on] of [
    ['enable', true],
    ['disable', false],
  ] as const)
    cmd
      .command(name)
      .description(
        on
          ? 'keep and apply the suppression list (the default)'
          : 'neither list bounced addresses nor skip listed ones',
      )
      .requiredOption('--account <username>', 'account username or customer_id')
      .option('--json', 'print JSON')
      .action(
        action(async (o: { account: string; json?: boolean }) => {
          const r = await withAccount(o.account, (ctx, id) => setSuppressionList(ctx, id, on, CLI_CHANGE));
          output(o.json, r, `suppression list ${on ? 'enabled' : 'disabled'} for ${o.account}`);
        }),
      );
  return cmd;
}
