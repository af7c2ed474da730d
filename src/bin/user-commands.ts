/** `sealpost user ...`: console users from the command line (the first owner of a fresh install comes this way). */
import { Command } from 'commander';
import { action, output, withContext } from './cli-support.ts';
import { getAccount } from '../accounts/accounts.service.ts';
import {
  createUser,
  disableUser,
  getUserByEmail,
  issueUserLink,
  usersOf,
  type User,
} from '../users/users.service.ts';
import { setPasswordUrl as link } from '../users/user-mail.ts';
import type { AuditActor } from '../audit/audit.service.ts';

const CLI: AuditActor = { type: 'system', id: 'cli' };

/** Reads the whole of standard input; one trailing line break is dropped. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

function userLine(u: User & { account?: string }): string {
  const flags = [
    u.operator ? 'operator' : '',
    u.canReadProtected ? 'protected' : '',
    u.disabled ? 'disabled' : '',
    u.totpEnabled ? '2fa' : '',
  ]
    .filter(Boolean)
    .join(',');
  return `${u.email}\t${u.account ?? u.customerId}\t${u.role}\t${flags || '-'}`;
}

/** `sealpost user ...` */
export function userCommand(): Command {
  const cmd = new Command('user').description('manage console users');
  userCreateCommand(cmd);
  userListCommand(cmd);
  userDisableCommand(cmd);
  userResetCommand(cmd);
  return cmd;
}

/** `sealpost user create`: a console user, with a password from standard input or a one-time link to set one. */
function userCreateCommand(cmd: Command): void {
  cmd
    .command('create')
    .description('create a console user; without --password-stdin, print a one-time link to set the password')
    .requiredOption('--account <username>', 'account username or customer_id')
    .requiredOption('--email <email>', 'email address the user signs in with')
    .requiredOption('--role <role>', 'owner, admin, editor or viewer')
    .option('--password-stdin', 'read the password from standard input')
    .option('--operator', 'an installation operator: may look at every account')
    .option('--json', 'print JSON')
    .action(
      action(
        async (o: {
          account: string;
          email: string;
          role: string;
          passwordStdin?: boolean;
          operator?: boolean;
          json?: boolean;
        }) => {
          const password = o.passwordStdin ? await readStdin() : undefined;
          const { user, url } = await withContext(async (ctx) => {
            const account = await getAccount(ctx.database.db, o.account);
            const user = await createUser(
              ctx.database.db,
              {
                customerId: account.customer_id,
                email: o.email,
                role: o.role,
                password,
                operator: o.operator,
              },
              CLI,
            );
            return {
              user,
              url:
                password === undefined
                  ? link(ctx, await issueUserLink(ctx.database.db, user, 'set_password'))
                  : undefined,
            };
          });
          const human = `created ${user.role} ${user.email} in account ${o.account}${url ? `\nset the password within 72 hours (the link works once):\n${url}` : ''}`;
          output(o.json, { ...user, set_password_url: url }, human);
        },
      ),
    );
}

/** `sealpost user list`: the console users of one account or of all. */
function userListCommand(cmd: Command): void {
  cmd
    .command('list')
    .description('list console users')
    .option('--account <username>', 'only this account')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { account?: string; json?: boolean }) => {
        const users = await withContext(async (ctx) => {
          const customerId = o.account
            ? (await getAccount(ctx.database.db, o.account)).customer_id
            : undefined;
          return usersOf(ctx.database.db, customerId);
        });
        output(o.json, users, users.map((u) => userLine(u)).join('\n') || 'no users');
      }),
    );
}

/** `sealpost user disable`: disables a user, ending their sessions. */
function userDisableCommand(cmd: Command): void {
  cmd
    .command('disable')
    .description('disable a user; their sessions end at once')
    .requiredOption('--email <email>', 'the user')
    .action(
      action(async (o: { email: string }) => {
        await withContext(async (ctx) =>
          disableUser(ctx.database.db, await getUserByEmail(ctx.database.db, o.email), CLI),
        );
        output(false, {}, `disabled ${o.email}`);
      }),
    );
}

/** `sealpost user reset`: prints a one-time link that sets a new password. */
function userResetCommand(cmd: Command): void {
  cmd
    .command('reset')
    .description('print a one-time link that sets a new password (the old one keeps working until then)')
    .requiredOption('--email <email>', 'the user')
    .option('--json', 'print JSON')
    .action(
      action(async (o: { email: string; json?: boolean }) => {
        const url = await withContext(async (ctx) => {
          const user = await getUserByEmail(ctx.database.db, o.email);
          return link(ctx, await issueUserLink(ctx.database.db, user, 'reset'));
        });
        output(
          o.json,
          { set_password_url: url },
          `set a new password for ${o.email} within 72 hours (the link works once):\n${url}`,
        );
      }),
    );
}
