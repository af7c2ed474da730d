/** Administration that has no API: accounts, domains and API keys. */
import { Command, Option } from 'commander';
import { promises as dns } from 'node:dns';
import { action, output, withContext } from './cli-support.ts';
import { CLI_CHANGE } from '../audit/audit.service.ts';
import { allAccounts, createAccount, getAccount } from '../accounts/accounts.service.ts';
import {
  accountDomains,
  addDomain,
  DKIM_SIGNING,
  verifyDomain,
  type DkimSigning,
  type Domain,
} from '../accounts/domains.service.ts';
import { accountKeys, createKey, revoke } from '../accounts/keys.service.ts';
import { suppressTransactionalCommand } from './settings-commands.ts';
import { checksText, sendingHostOf } from '../accounts/dns-checks.ts';

function recordsText(d: Domain): string {
  return d.dns_records
    .map(
      (r) =>
        `  ${r.type}  ${r.name}${r.purpose === 'spf' || r.purpose === 'dmarc' ? '  (advised)' : ''}\n       ${r.value}${r.note ? `\n       note: ${r.note}` : ''}`,
    )
    .join('\n');
}

/** `sealpost account ...` */
export function accountCommand(): Command {
  const cmd = new Command('account').description('manage accounts (customers)');
  cmd
    .command('create')
    .description('create an account')
    .requiredOption('--username <name>', 'account username (also a path segment of the API)')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { username: string; json?: boolean }) => {
        const a = await withContext((ctx) => createAccount(ctx.database.db, o.username));
        output(
          o.json,
          { customer_id: a.customer_id, username: a.username },
          `created account ${a.username} (customer_id ${a.customer_id})`,
        );
      }),
    );
  cmd
    .command('list')
    .description('list accounts')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { json?: boolean }) => {
        const list = await withContext((ctx) => allAccounts(ctx.database.db));
        output(
          o.json,
          list,
          list.map((a) => `${a.customer_id}\t${a.username}\t${a.created_at}`).join('\n') || 'no accounts',
        );
      }),
    );
  cmd.addCommand(suppressTransactionalCommand());
  return cmd;
}

/** `sealpost domain ...` */
export function domainCommand(): Command {
  const cmd = new Command('domain').description('manage sending domains');
  domainAddCommand(cmd);
  domainVerifyCommand(cmd);
  domainListCommand(cmd);
  return cmd;
}

/** `sealpost domain add`: adds a sending domain and prints the DNS records to publish. */
function domainAddCommand(cmd: Command): void {
  cmd
    .command('add')
    .description('add a sending domain and print the DNS records to publish')
    .requiredOption('--account <username>', 'account username or customer_id')
    .requiredOption('--domain <domain>', 'domain name')
    .option('--verified', 'mark verified without a DNS check (development and tests only)')
    .addOption(
      new Option('--dkim <keys>', 'DKIM keys to sign with: rsa, ed25519, or both (RSA and Ed25519)')
        .choices([...DKIM_SIGNING])
        .default('rsa'),
    )
    .option('--json', 'print JSON')
    .action(
      action(
        async (o: {
          account: string;
          domain: string;
          verified?: boolean;
          dkim: DkimSigning;
          json?: boolean;
        }) => {
          const d = await withContext(async (ctx) => {
            const account = await getAccount(ctx.database.db, o.account);
            return addDomain(ctx.database.db, ctx.sealer, account.customer_id, o.domain, CLI_CHANGE, {
              verified: o.verified,
              sendingHost: sendingHostOf(ctx.config),
              dkim: o.dkim,
            });
          });
          const note = o.verified
            ? `\nMarked verified WITHOUT a DNS check (--verified is for development and tests). Publish the records before sending real mail.`
            : `\nPublish these records, then run: sealpost domain verify --account ${o.account} --domain ${d.domain}`;
          output(
            o.json,
            { ...d, verified_without_dns: o.verified === true },
            `added ${d.domain}\nDNS records:\n${recordsText(d)}${note}`,
          );
        },
      ),
    );
}

/** `sealpost domain verify`: checks a domain's DNS records and marks it verified. */
function domainVerifyCommand(cmd: Command): void {
  cmd
    .command('verify')
    .description('check the DNS records of a domain and mark it verified')
    .requiredOption('--account <username>', 'account username or customer_id')
    .requiredOption('--domain <domain>', 'domain name')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { account: string; domain: string; json?: boolean }) => {
        const d = await withContext(async (ctx) => {
          const account = await getAccount(ctx.database.db, o.account);
          return verifyDomain(ctx.database.db, dns, account.customer_id, o.domain, CLI_CHANGE, {
            sendingHost: sendingHostOf(ctx.config),
          });
        });
        const advice = d.dns_checks?.some((c) => !c.ok)
          ? '\nPublish the missing advised records so receivers trust its mail.'
          : '';
        output(o.json, d, `${d.domain} is verified\n${checksText(d.dns_checks ?? [])}${advice}`);
      }),
    );
}

/** `sealpost domain list`: an account's domains and whether each is verified. */
function domainListCommand(cmd: Command): void {
  cmd
    .command('list')
    .description("list an account's domains")
    .requiredOption('--account <username>', 'account username or customer_id')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { account: string; json?: boolean }) => {
        const list = await withContext(async (ctx) =>
          accountDomains(ctx.database.db, (await getAccount(ctx.database.db, o.account)).customer_id),
        );
        output(
          o.json,
          list,
          list.map((d) => `${d.domain}\t${d.verified ? 'verified' : 'unverified'}`).join('\n') ||
            'no domains',
        );
      }),
    );
}

/** `sealpost key ...` */
export function keyCommand(): Command {
  const cmd = new Command('key').description('manage API keys');
  cmd
    .command('create')
    .description('create an API key; its value is printed once and never again')
    .requiredOption('--account <username>', 'account username or customer_id')
    .option('--domain <domain>', 'the domain the key belongs to')
    .requiredOption('--scopes <list>', 'comma-separated: email, forms, marketing')
    .option('--description <text>', 'what the key is for', '')
    .option('--json', 'print JSON')
    .action(
      action(
        async (o: {
          account: string;
          domain?: string;
          scopes: string;
          description: string;
          json?: boolean;
        }) => {
          const k = await withContext(async (ctx) => {
            const account = await getAccount(ctx.database.db, o.account);
            return createKey(ctx.database.db, account.customer_id, {
              scopes: o.scopes,
              domain: o.domain,
              description: o.description,
              by: CLI_CHANGE,
            });
          });
          output(
            o.json,
            k,
            `created key ${k.id} (scopes ${k.scopes.join(', ')})\n${k.key}\nStore it now: it is not shown again.`,
          );
        },
      ),
    );
  cmd
    .command('list')
    .description("list an account's keys (never their values)")
    .requiredOption('--account <username>', 'account username or customer_id')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { account: string; json?: boolean }) => {
        const list = await withContext(async (ctx) =>
          accountKeys(ctx.database.db, (await getAccount(ctx.database.db, o.account)).customer_id),
        );
        const human = list
          .map(
            (k) =>
              `${k.id}\t${k.prefix}…\t${k.scopes.join(',')}\t${k.revoked_at ? 'revoked' : 'active'}\t${k.description}`,
          )
          .join('\n');
        output(o.json, list, human || 'no keys');
      }),
    );
  cmd
    .command('revoke')
    .description('revoke a key by id')
    .argument('<id>', 'key id')
    .option('--json', 'print JSON')
    .action(
      action(async (id: string, o: { json?: boolean }) => {
        const r = await withContext((ctx) => revoke(ctx.database.db, id, CLI_CHANGE));
        output(o.json, r, `revoked key ${r.id}`);
      }),
    );
  return cmd;
}
