/**
 * The suppression list at `/console/settings/suppressions`: the addresses the account's transactional mail skips (hard
 * bounces, complaints, added by hand), whether the list is on, and for owners and admins adding, removing and
 * switching it. The same services as the API and `sealpost suppression`.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import {
  addSuppression,
  removeSuppression,
  setSuppressionList,
  suppressionPage,
  type Suppression,
} from '../accounts/suppressions.service.ts';
import { suppressionListOn } from '../accounts/suppressions.repository.ts';
import { AppError } from '../errors/app-error.ts';
import { normalizeEmail } from '../users/users.service.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { csrfField } from './layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from './page.ts';
import { field, when } from './format.ts';
import { Form, Text } from './action.schemas.ts';

const PATH = '/console/settings/suppressions';
const SHOWN = 100;

const REASONS: Record<Suppression['reason'], string> = {
  hard_bounce: 'hard bounce',
  complaint: 'complaint',
  manual: 'added by hand',
};

function address(c: ConsoleContext): string {
  const raw = field(c, 'address');
  try {
    return normalizeEmail(raw);
  } catch {
    throw new AppError('request.invalid', `"${raw}" is not an email address`);
  }
}

function row(c: ConsoleContext, s: Suppression): SafeHtml {
  return html`<tr>
    <td data-label="Address">${s.address}</td>
    <td data-label="Why">${REASONS[s.reason]}<br /><span class="muted">${s.detail}</span></td>
    <td data-label="Since">${when(Date.parse(s.created_at))}</td>
    <td data-label="Message">
      ${s.sourceTrackingId ? html`<a href="/console/messages/${s.sourceTrackingId}" class="mono">${s.sourceTrackingId}</a>` : html`<span class="muted">none</span>`}
    </td>
    ${
      c.can('manage_settings')
        ? html`<td data-label="Change">
            <form method="post" action="${PATH}/remove" class="inline">
              ${csrfField(c.csrfToken)}
              <input type="hidden" name="address" value="${s.address}" />
              <button type="submit" class="secondary" aria-label="Remove ${s.address}">Remove</button>
            </form>
          </td>`
        : ''
    }
  </tr>`;
}

/** Registers the suppression list page and its actions. */
export function suppressionPages(app: FastifyInstance, ctx: AppContext): void {
  registerSuppressionPage(app, ctx);
  registerSuppressionActions(app, ctx);
}

/** Registers the page: whether the list is on, the newest listed addresses, and the add form for `manage_settings`. */
function registerSuppressionPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: PATH,
    permission: 'read',
    title: 'Suppression list',
    render: async (c) => {
      const [on, { suppressions }] = await Promise.all([
        suppressionListOn(c.ctx.database.reader, c.account.customer_id),
        suppressionPage(c.ctx, c.account.customer_id, 1, SHOWN),
      ]);
      const manage = c.can('manage_settings');
      return html`${stateCard(c, on)}
        <div class="card">
          <h2>Listed addresses</h2>
          ${suppressions.length === 0 ? html`<p>No address is listed.</p>` : listedTable(c, suppressions)}
        </div>
        ${
          manage
            ? html`<form class="card" method="post" action="${PATH}">
                <h2>Add an address</h2>
                ${csrfField(c.csrfToken)}
                <div class="field">
                  <label for="suppress-address">Email address</label>
                  <input type="email" id="suppress-address" name="address" required autocomplete="off" />
                </div>
                <button type="submit">Add to the list</button>
              </form>`
            : ''
        }
        <p><a href="/console/settings">All settings</a></p>`;
    },
  });
}

/** Whether the list is on and what that means, with the switch for `manage_settings`. */
function stateCard(c: ConsoleContext, on: boolean): SafeHtml {
  return html`<div class="card">
    <p>
      The list is <strong>${on ? 'on' : 'off'}</strong>.
      ${
        on
          ? 'An address whose mail bounced for good, or whose owner marked it as spam, is listed here, and later messages to it are not sent.'
          : 'Nothing is listed and no address is skipped while it is off.'
      }
    </p>
    ${
      c.can('manage_settings')
        ? html`<form method="post" action="${PATH}/state" class="inline">
            ${csrfField(c.csrfToken)}
            <input type="hidden" name="on" value="${on ? 'false' : 'true'}" />
            <button type="submit" class="secondary">${on ? 'Turn the list off' : 'Turn the list on'}</button>
          </form>`
        : ''
    }
  </div>`;
}

/** The table of the newest listed addresses. */
function listedTable(c: ConsoleContext, suppressions: Suppression[]): SafeHtml {
  return html`<p class="muted">The newest ${SHOWN} are shown.</p>
    <div class="table-wrap">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Address</th>
            <th scope="col">Why</th>
            <th scope="col">Since</th>
            <th scope="col">Message</th>
            ${c.can('manage_settings') ? html`<th scope="col">Change</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${suppressions.map((s) => row(c, s))}
        </tbody>
      </table>
    </div>`;
}

/** Registers the actions: add an address, remove one, turn the list on or off. */
function registerSuppressionActions(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: PATH,
    permission: 'manage_settings',
    body: Form({ address: Text() }),
    back: () => PATH,
    handle: async (c) => {
      const added = await addSuppression(c.ctx, c.account.customer_id, address(c), 'added in the console');
      return { redirect: PATH, flash: `Added ${added.address} to the suppression list.` };
    },
    audit: { action: 'suppression.add', target: (c) => `address:${address(c)}` },
  });

  consoleAction(app, ctx, {
    path: `${PATH}/remove`,
    permission: 'manage_settings',
    body: Form({ address: Text() }),
    back: () => PATH,
    handle: async (c) => ({
      redirect: PATH,
      flash: await removeSuppression(c.ctx, c.account.customer_id, address(c)).then((r) => r.message),
    }),
    audit: { action: 'suppression.remove', target: (c) => `address:${address(c)}` },
  });

  consoleAction(app, ctx, {
    path: `${PATH}/state`,
    permission: 'manage_settings',
    body: Form({ on: Text() }),
    back: () => PATH,
    handle: async (c) => {
      const on = field(c, 'on') === 'true';
      await setSuppressionList(c.ctx, c.account.customer_id, on, c.by);
      return { redirect: PATH, flash: `The suppression list is ${on ? 'on' : 'off'}.` };
    },
  });
}
