/** `sealpost webhook ...`: webhook endpoints of an account, from the command line. */
import { Command } from 'commander';
import { action, output, withContext } from './cli-support.ts';
import { CLI_CHANGE } from '../audit/audit.service.ts';
import { getAccount } from '../accounts/accounts.service.ts';
import {
  createEndpoint,
  endpointsOf,
  removeEndpoint,
  type WebhookEndpoint,
} from '../webhooks/webhooks.service.ts';

const state = (e: WebhookEndpoint) =>
  e.disabled_at ? `disabled since ${e.disabled_at}` : e.active ? 'active' : 'off';
const summary = (e: WebhookEndpoint) => `${e.id}\t${state(e)}\t${e.target_url}\t${e.events.join(',')}`;

/** `sealpost webhook ...` */
export function webhookCommand(): Command {
  const cmd = new Command('webhook').description('manage webhook endpoints');
  cmd
    .command('add')
    .description('add an endpoint; its signing key is printed once and never again')
    .requiredOption('--account <username>', 'account username or customer_id')
    .requiredOption('--url <url>', 'the http or https URL events are posted to')
    .requiredOption(
      '--events <list>',
      'comma-separated: api_mail_log_delivered, api_mail_log_opened, api_mail_log_temporary_failure, api_mail_log_permanent_failure, api_mail_log_suppressed, api_mail_log_complained',
    )
    .option('--signing-key <key>', 'the signing secret (generated when absent)')
    .option('--json', 'print JSON')
    .action(
      action(
        async (o: { account: string; url: string; events: string; signingKey?: string; json?: boolean }) => {
          const e = await withContext(async (ctx) => {
            const account = await getAccount(ctx.database.db, o.account);
            return createEndpoint(
              ctx,
              account.customer_id,
              { target_url: o.url, events: o.events.split(','), signing_key: o.signingKey },
              CLI_CHANGE,
            );
          });
          output(
            o.json,
            e,
            `added webhook endpoint ${e.id}\n${summary(e)}\nsigning key: ${e.signing_key}\nStore it now: it is not shown again.`,
          );
        },
      ),
    );
  cmd
    .command('list')
    .description("list an account's endpoints (never their signing keys)")
    .requiredOption('--account <username>', 'account username or customer_id')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { account: string; json?: boolean }) => {
        const list = await withContext(async (ctx) =>
          endpointsOf(ctx, (await getAccount(ctx.database.db, o.account)).customer_id),
        );
        output(o.json, list, list.map(summary).join('\n') || 'no webhook endpoints');
      }),
    );
  cmd
    .command('remove')
    .description('remove an endpoint by id, with its deliveries and attempt log')
    .argument('<id>', 'endpoint id')
    .option('--json', 'print JSON')
    .action(
      action(async (id: string, o: { json?: boolean }) => {
        const r = await withContext((ctx) => removeEndpoint(ctx, undefined, id, CLI_CHANGE));
        output(o.json, r, `removed webhook endpoint ${r.id}`);
      }),
    );
  return cmd;
}
