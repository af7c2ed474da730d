/** `sealpost account suppress-transactional <username> on|off`: the marketing switch that also has an API (`PATCH /settings`). */
import { Command } from 'commander';
import { action, output, withContext } from './cli-support.ts';
import { CLI_CHANGE } from '../audit/audit.service.ts';
import { getAccount } from '../accounts/accounts.service.ts';
import { AppError } from '../errors/app-error.ts';
import { changeSettings } from '../accounts/settings.service.ts';

const SWITCH = { on: true, off: false } as const;

/** The `suppress-transactional` subcommand of `sealpost account`. */
export function suppressTransactionalCommand(): Command {
  return new Command('suppress-transactional')
    .description(
      "make the account's transactional sends skip globally unsubscribed subscribers (on), or deliver to them (off)",
    )
    .argument('<username>', 'account username or customer_id')
    .argument('<state>', 'on or off')
    .option('--json', 'print JSON')
    .action(
      action(async (username: string, state: string, o: { json?: boolean }) => {
        const key = state.toLowerCase();
        if (key !== 'on' && key !== 'off')
          throw new AppError('request.invalid', `state must be "on" or "off", not "${state}"`);
        const settings = await withContext(async (ctx) => {
          const account = await getAccount(ctx.database.db, username);
          return changeSettings(
            ctx,
            account.customer_id,
            { suppress_transactional: SWITCH[key] },
            CLI_CHANGE,
          );
        });
        output(o.json, settings.attributes, `transactional suppression is ${key} for ${username}`);
      }),
    );
}
