/**
 * API keys at `/console/keys`: the list (prefix, scopes, created by, last used), creating a key (the form redirects to a
 * one-time page showing its value, never again), revoking with a confirmation step, and the rotation advice.
 * Owners and admins change keys; everyone in the account may read the list.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { accountKeys, createKey, revoke, SCOPES, type ApiKeyInfo } from '../accounts/keys.service.ts';
import { accountDomains } from '../accounts/domains.service.ts';
import { AppError } from '../errors/app-error.ts';
import { usersOf } from '../users/users.service.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { csrfField } from './layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from './page.ts';
import { field, fields, when } from './format.ts';
import { Form, NoFields, Text, Repeated } from './action.schemas.ts';
import { revealLater, shownOncePage } from './shown-once.ts';

const ROTATION = html`<div class="card">
  <h2>Rotating a key</h2>
  <ol>
    <li>Create the new key and put it into your application's configuration.</li>
    <li>Deploy, and check that requests succeed with the new key ("Last used" of the new key moves).</li>
    <li>Only then revoke the old key. Revoking first would stop your mail until the new key is in place.</li>
  </ol>
</div>`;

async function creators(c: ConsoleContext): Promise<Map<string, string>> {
  const users = await usersOf(c.ctx.database.db, c.account.customer_id);
  return new Map(users.map((u) => [`user:${u.id}`, u.email]));
}

function keyRow(c: ConsoleContext, k: ApiKeyInfo, who: Map<string, string>): SafeHtml {
  const by = k.created_by ? (who.get(k.created_by) ?? 'a removed user') : 'command line';
  return html`<tr>
    <td data-label="Prefix"><code>${k.prefix}…</code></td>
    <td data-label="Description">${k.description || html`<span class="muted">none</span>`}${k.domain ? html`<br /><span class="muted">${k.domain}</span>` : ''}</td>
    <td data-label="Scopes">${k.scopes.join(', ')}</td>
    <td data-label="Created by">${by}<br /><span class="muted">${when(k.created_at)}</span></td>
    <td data-label="Last used">${k.last_used_at ? when(k.last_used_at) : 'never'}</td>
    <td data-label="State">
      ${
        k.revoked_at
          ? html`Revoked ${when(k.revoked_at)}`
          : c.can('manage_settings')
            ? html`<a class="button secondary" href="/console/keys/${k.id}/revoke">Revoke…</a>`
            : 'Active'
      }
    </td>
  </tr>`;
}

async function createForm(c: ConsoleContext): Promise<SafeHtml> {
  const domains = await accountDomains(c.ctx.database.db, c.account.customer_id);
  return html`<form class="card" method="post" action="/console/keys">
    <h2>Create a key</h2>
    ${csrfField(c.csrfToken)}
    <div class="field">
      <label for="key-description">Description</label>
      <input id="key-description" name="description" maxlength="200" required aria-describedby="key-description-hint" />
      <p class="hint" id="key-description-hint">Where the key will be used, for example "booking system, production".</p>
    </div>
    <fieldset class="field">
      <legend>Scopes</legend>
      ${SCOPES.map(
        (s) =>
          html`<div class="check">
            <input type="checkbox" id="scope-${s}" name="scopes" value="${s}" ${s === 'email' ? html`checked` : ''} />
            <label for="scope-${s}">${s}</label>
          </div>`,
      )}
    </fieldset>
    <div class="field">
      <label for="key-domain">Sending domain</label>
      <select id="key-domain" name="domain">
        <option value="">Any domain of the account</option>
        ${domains.map((d) => html`<option value="${d.domain}">${d.domain}</option>`)}
      </select>
    </div>
    <button type="submit" class="button">Create key</button>
  </form>`;
}

/** What the one-time page of a new key shows. */
interface NewKey {
  key: string;
  prefix: string;
  scopes: string[];
}

function shownOnce(key: NewKey): SafeHtml {
  return html`<div class="card" role="region" aria-labelledby="new-key-heading">
      <h2 id="new-key-heading">Your new key</h2>
      <p class="flash flash-info">
        <strong>Copy this key now. It is shown only this once:</strong> Sealpost keeps only a hash of it and cannot show it again. If it is
        lost, create another key and revoke this one.
      </p>
      <p><code id="new-key" class="mono">${key.key}</code></p>
      <p><button type="button" data-copy="new-key">Copy key</button></p>
      <p class="muted">Scopes: ${key.scopes.join(', ')}. In the list it appears as <code>${key.prefix}…</code>.</p>
      <p><a href="/console/keys">Back to the keys</a></p>
    </div>
    ${ROTATION}`;
}

/** Registers the API keys pages. */
export function keyPages(app: FastifyInstance, ctx: AppContext): void {
  registerKeysPage(app, ctx);
  registerCreateKey(app, ctx);
  registerNewKeyPage(app, ctx);
  registerRevokeKey(app, ctx);
}

/** Registers the list of the account's keys, with the create form for `manage_settings`. */
function registerKeysPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/keys',
    permission: 'read',
    title: 'API keys',
    render: async (c) => {
      const [keys, who] = await Promise.all([
        accountKeys(c.ctx.database.db, c.account.customer_id),
        creators(c),
      ]);
      return html`<div class="card">
          <h2>Keys of this account</h2>
          ${keys.length === 0 ? html`<p>No keys yet.</p>` : keysTable(c, keys, who)}
        </div>
        ${c.can('manage_settings') ? await createForm(c) : ''} ${ROTATION}`;
    },
  });
}

/** The table of keys: prefix, description, scopes, creator, last use and state. */
function keysTable(c: ConsoleContext, keys: ApiKeyInfo[], who: Map<string, string>): SafeHtml {
  return html`<div class="table-wrap">
    <table class="stack">
      <caption class="muted">
        The full value of a key is never shown after it is created.
      </caption>
      <thead>
        <tr>
          <th scope="col">Prefix</th>
          <th scope="col">Description</th>
          <th scope="col">Scopes</th>
          <th scope="col">Created by</th>
          <th scope="col">Last used</th>
          <th scope="col">State</th>
        </tr>
      </thead>
      <tbody>
        ${keys.map((k) => keyRow(c, k, who))}
      </tbody>
    </table>
  </div>`;
}

/** Registers the action that creates a key and redirects to the one-time page with its value. */
function registerCreateKey(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/keys',
    permission: 'manage_settings',
    body: Form({ description: Text(), scopes: Repeated(), domain: Text() }),
    back: () => '/console/keys',
    handle: async (c) => {
      const description = field(c, 'description');
      if (!description)
        throw new AppError(
          'request.invalid',
          'give the key a description, so that it can be told apart later',
        );
      const key = await createKey(c.ctx.database.db, c.account.customer_id, {
        scopes: fields(c, 'scopes'),
        domain: field(c, 'domain') || undefined,
        description: description.slice(0, 200),
        by: c.by,
      });
      const shown: NewKey = { key: key.key, prefix: key.prefix, scopes: key.scopes };
      return { redirect: `/console/keys/new/${await revealLater(c, 'api_key', shown)}` };
    },
  });
}

/** Registers the page that shows a new key's value the first time it is opened, and never again. */
function registerNewKeyPage(app: FastifyInstance, ctx: AppContext): void {
  shownOncePage<NewKey>(app, ctx, {
    path: '/console/keys/new/:token',
    permission: 'manage_settings',
    title: 'API key created',
    kind: 'api_key',
    render: (_c, key) => shownOnce(key),
    spent: 'This key was already shown; create a new one if you lost it.',
    expired:
      'This page has expired, so the key cannot be shown; if you did not copy it, revoke it and create a new one.',
    back: () => ({ href: '/console/keys', label: 'Back to the keys' }),
  });
}

/** Registers the revoke confirmation page and the revoke action. */
function registerRevokeKey(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/keys/:id/revoke',
    permission: 'manage_settings',
    title: 'Revoke API key',
    render: async (c) => {
      const key = (await accountKeys(c.ctx.database.db, c.account.customer_id)).find(
        (k) => k.id === c.params.id,
      );
      if (!key) throw new AppError('key.not_found', 'no such API key in this account');
      return html`<form class="card" method="post" action="/console/keys/${key.id}/revoke">
        ${csrfField(c.csrfToken)}
        <p>
          Revoke the key <code>${key.prefix}…</code> (${key.description || 'no description'})? Requests with it are refused from then on;
          this cannot be undone.
        </p>
        <p class="muted">Last used: ${key.last_used_at ? when(key.last_used_at) : 'never'}.</p>
        <div class="actions">
          <button type="submit" class="danger">Revoke key</button>
          <a class="button secondary" href="/console/keys">Cancel</a>
        </div>
      </form>`;
    },
  });

  consoleAction(app, ctx, {
    path: '/console/keys/:id/revoke',
    permission: 'manage_settings',
    body: NoFields,
    back: () => '/console/keys',
    handle: async (c) => {
      await revoke(c.ctx.database.db, c.params.id!, c.by, { customerId: c.account.customer_id });
      return { redirect: '/console/keys', flash: 'The key is revoked.' };
    },
  });
}
