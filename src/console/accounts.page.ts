/**
 * The operator's account switcher at `/console/accounts`: every account of the installation, searchable by username,
 * each with a "View" button; choosing one makes every console page show that account (read only) until the operator
 * switches back. Only an installation operator may open it or switch: the server refuses anyone else. Each switch is
 * recorded in the audit trail of the account looked at.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { searchAccounts, type Account } from '../accounts/accounts.service.ts';
import { switchAccount } from '../users/operator.service.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { csrfField, scrollTable } from './layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from './page.ts';
import { field, when } from './format.ts';
import { Form, Text } from './action.schemas.ts';

const PATH = '/console/accounts';
const SHOWN = 100;

function switchButton(c: ConsoleContext, a: Account): SafeHtml {
  if (a.customer_id === c.account.customer_id)
    return html`<strong>${a.customer_id === c.user.customerId ? 'Your account, shown now' : 'Shown now'}</strong>`;
  return html`<form method="post" action="${PATH}/switch">
    ${csrfField(c.csrfToken)}<input type="hidden" name="account" value="${String(a.customer_id)}" />
    <button type="submit" class="button secondary" aria-label="View the account ${a.username}">
      ${a.customer_id === c.user.customerId ? 'Back to my account' : 'View'}
    </button>
  </form>`;
}

/** Registers the account switcher. */
export function accountPages(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: PATH,
    permission: 'read',
    title: 'Accounts',
    render: async (c) => {
      if (!c.user.operator)
        throw new AppError(
          'console.forbidden',
          'only an operator of the installation may look at other accounts',
        );
      const search = (c.query.search ?? '').trim();
      const accounts = await searchAccounts(c.ctx.database.reader, search, SHOWN + 1);
      return html`<p>
          As the installation operator you may look at every account. The account you choose is shown on every page, read only,
          until you switch again; each switch is written to that account's audit trail.
        </p>
        <form method="get" class="filters" role="search" aria-label="Find an account">
          <div class="field">
            <label for="acct-search">Search accounts</label>
            <input id="acct-search" name="search" type="search" value="${search}" autocomplete="off" />
          </div>
          <button type="submit">Search</button>
        </form>
        ${
          accounts.length === 0
            ? html`<div class="card"><p>No account matches.</p></div>`
            : scrollTable(
                'Accounts',
                html`<table class="stack">
                  <caption class="sr-only">
                    Accounts of the installation
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Account</th>
                      <th scope="col">Id</th>
                      <th scope="col">Created</th>
                      <th scope="col"><span class="sr-only">Action</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${accounts.slice(0, SHOWN).map(
                      (a) =>
                        html`<tr>
                          <td data-label="Account">${a.username}</td>
                          <td data-label="Id">${String(a.customer_id)}</td>
                          <td data-label="Created">${when(a.created_at)}</td>
                          <td data-label="Action">${switchButton(c, a)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`,
              )
        }
        ${accounts.length > SHOWN ? html`<p class="muted">The first ${SHOWN} are shown: search to narrow them.</p>` : ''}`;
    },
  });

  consoleAction(app, ctx, {
    path: `${PATH}/switch`,
    permission: 'read',
    body: Form({ account: Text() }),
    back: () => PATH,
    allow: (c) => c.user.operator,
    handle: async (c) => {
      const account = await switchAccount(c.ctx.database.db, c.session, field(c, 'account'), c.ip);
      return {
        redirect: '/console',
        flash: {
          kind: 'info',
          text:
            account.customer_id === c.user.customerId
              ? `you are back in your account ${account.username}`
              : `you are viewing the account ${account.username}, read only`,
        },
      };
    },
  });
}
