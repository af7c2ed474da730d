/** `sealpost captured ...`: reading the capture store, where the `capture` transport keeps mail instead of sending it. */
import { Command } from 'commander';
import { action, output, withContext } from './cli-support.ts';
import { getAccount } from '../accounts/accounts.service.ts';
import { capturedById, capturedOfAccount, type CapturedMessage } from '../email/captured.service.ts';
import { capturedOfSend } from '../marketing/deliveries/captured.ts';

const summary = (c: CapturedMessage) =>
  `${c.id}\t${c.created_at}\t${c.sourceTrackingId}\t${c.envelope_from} -> ${c.envelope_to}`;

/** `sealpost captured ...` */
export function capturedCommand(): Command {
  const cmd = new Command('captured').description('read mail kept by the capture transport');
  cmd
    .command('list')
    .description("list an account's captured messages, newest first")
    .requiredOption('--account <username>', 'account username or customer_id')
    .option('--source-tracking-id <id>', 'only the copies of this sent message')
    .option('--limit <n>', 'at most this many', '100')
    .option('--json', 'print JSON (with the raw messages)')
    .action(
      action(async (o: { account: string; sourceTrackingId?: string; limit: string; json?: boolean }) => {
        const list = await withContext(async (ctx) => {
          const account = await getAccount(ctx.database.db, o.account);
          const limit = Math.min(Math.max(Number.parseInt(o.limit, 10) || 100, 1), 10_000);
          return capturedOfAccount(ctx, account.customer_id, { sourceTrackingId: o.sourceTrackingId, limit });
        });
        output(o.json, list, list.map(summary).join('\n') || 'no captured messages');
      }),
    );
  cmd
    .command('show')
    .description('show one captured message')
    .argument('<id>', 'captured message id')
    .option('--raw', 'print only the raw MIME message')
    .option('--json', 'print JSON')
    .action(
      action(async (id: string, o: { raw?: boolean; json?: boolean }) => {
        const c = await withContext((ctx) => capturedById(ctx, id));
        if (o.raw && !o.json) {
          process.stdout.write(c.raw ?? '');
          return;
        }
        const human = [
          `id:                ${c.id}`,
          `sourceTrackingId:  ${c.sourceTrackingId}`,
          `recipient:         ${c.recipient ?? ''}`,
          `envelope from:     ${c.envelope_from}`,
          `envelope to:       ${c.envelope_to}`,
          `captured at:       ${c.created_at}`,
          '',
          c.raw ?? '(the raw message was purged by retention)',
        ].join('\n');
        output(o.json, c, human);
      }),
    );
  cmd
    .command('campaign')
    .description('list the captured emails of one campaign send (with --json, the raw messages too)')
    .requiredOption('--account <username>', 'account username or customer_id')
    .requiredOption('--send <id>', 'campaign mailing send id: the integer id or the UUID')
    .option('--limit <n>', 'at most this many', '100')
    .option('--json', 'print JSON (with the raw messages)')
    .action(
      action(async (o: { account: string; send: string; limit: string; json?: boolean }) => {
        const list = await withContext(async (ctx) => {
          const account = await getAccount(ctx.database.db, o.account);
          const limit = Math.min(Math.max(Number.parseInt(o.limit, 10) || 100, 1), 10_000);
          return capturedOfSend(ctx, account.customer_id, o.send, limit);
        });
        const human = list
          .map((c) => `${c.delivery_id}\t${c.created_at}\t${c.envelope_from} -> ${c.envelope_to}`)
          .join('\n');
        output(o.json, list, human || 'no captured emails');
      }),
    );
  return cmd;
}
