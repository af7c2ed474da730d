/** The users page for owners: invite by email, change roles, grant or revoke the protected-content permission, disable. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { ROLES } from '../users/capabilities.ts';
import {
  changeRole,
  enableUser,
  inviteUser,
  memberOf,
  setProtectedPermission,
} from '../users/members.service.ts';
import { disableUser, usersOf, type User } from '../users/users.service.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { csrfField, scrollTable } from './layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from './page.ts';
import { Form, NoFields, Text } from './action.schemas.ts';

const PATH = '/console/settings/users';

function when(ms: number | null): string {
  return ms === null ? 'never' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

function row(c: ConsoleContext, u: User): SafeHtml {
  const self = u.id === c.user.id;
  const roleId = `role-${u.id}`;
  return html`<tr id="user-${u.id}">
    <td data-label="Email">${u.email}${self ? html` <span class="muted">(you)</span>` : ''}</td>
    <td data-label="Role">
      <form method="post" action="${PATH}/${u.id}/role" class="actions">
        ${csrfField(c.csrfToken)}
        <label class="sr-only" for="${roleId}">Role of ${u.email}</label>
        <select id="${roleId}" name="role">
          ${ROLES.map((r) => html`<option value="${r}" ${r === u.role ? 'selected' : ''}>${r}</option>`)}
        </select>
        <button type="submit" class="secondary">Change</button>
      </form>
    </td>
    <td data-label="Protected content">
      ${
        u.role === 'owner'
          ? 'yes (owner)'
          : u.role === 'viewer'
            ? 'no'
            : html`<form method="post" action="${PATH}/${u.id}/protected" class="actions">
                ${csrfField(c.csrfToken)}<input type="hidden" name="granted" value="${u.canReadProtected ? 'no' : 'yes'}" />
                ${u.canReadProtected ? 'yes' : 'no'}
                <button
                  type="submit"
                  class="secondary"
                  aria-label="${u.canReadProtected ? 'Revoke' : 'Grant'} protected content for ${u.email}"
                >
                  ${u.canReadProtected ? 'Revoke' : 'Grant'}
                </button>
              </form>`
      }
    </td>
    <td data-label="Two-factor">${u.totpEnabled ? 'on' : 'off'}</td>
    <td data-label="Status">
      ${u.disabled ? 'disabled' : u.hasPassword ? 'active' : 'invited'}<br /><span class="muted">last sign-in ${when(u.lastSignInAt)}</span>
    </td>
    <td>
      ${
        self
          ? ''
          : html`<form
              method="post"
              action="${PATH}/${u.id}/${u.disabled ? 'enable' : 'disable'}"
              ${u.disabled ? '' : html`data-confirm="Disable ${u.email}? Their sessions end at once."`}
            >
              ${csrfField(c.csrfToken)}
              <button
                type="submit"
                class="${u.disabled ? 'secondary' : 'danger'}"
                aria-label="${u.disabled ? 'Enable' : 'Disable'} ${u.email}"
              >
                ${u.disabled ? 'Enable' : 'Disable'}
              </button>
            </form>`
      }
    </td>
  </tr>`;
}

function inviteForm(c: ConsoleContext): SafeHtml {
  return html`<div class="card">
    <h2>Invite someone</h2>
    <form method="post" action="${PATH}/invite">
      ${csrfField(c.csrfToken)}
      <div class="field">
        <label for="invite-email">Email</label><input id="invite-email" name="email" type="email" autocomplete="off" required />
      </div>
      <div class="field">
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          ${ROLES.map((r) => html`<option value="${r}" ${r === 'viewer' ? 'selected' : ''}>${r}</option>`)}
        </select>
        <p class="hint">Owner: everything. Admin: everything but users. Editor: templates, forms, lists, campaigns. Viewer: read only.</p>
      </div>
      <div class="field check">
        <input id="invite-protected" name="protected" type="checkbox" value="yes" /><label for="invite-protected"
          >May read protected content (message bodies, form submissions, exports)</label
        >
      </div>
      <button type="submit">Send invitation</button>
    </form>
  </div>`;
}

/** Registers the users page and its actions. */
export function userPages(app: FastifyInstance, ctx: AppContext): void {
  registerUsersPage(app, ctx);
  registerInvite(app, ctx);
  registerMemberActions(app, ctx);
}

/** Registers the table of the account's users with the invite form. */
function registerUsersPage(app: FastifyInstance, ctx: AppContext): void {
  const db = ctx.database.db;
  consolePage(app, ctx, {
    path: PATH,
    permission: 'manage_users',
    title: 'Users and roles',
    render: async (c) => {
      const users = await usersOf(db, c.account.customer_id);
      return html`${scrollTable(
        'Users',
        html`<table class="stack">
          <caption class="sr-only">
            Users of ${c.account.username}
          </caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Protected content</th>
              <th scope="col">Two-factor</th>
              <th scope="col">Status</th>
              <th scope="col"><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${users.map((u) => row(c, u))}
          </tbody>
        </table>`,
      )}
      ${inviteForm(c)}`;
    },
  });
}

/** Registers the invitation: mailed when the account can send, else a one-time link shown to pass on. */
function registerInvite(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: `${PATH}/invite`,
    permission: 'manage_users',
    body: Form({ email: Text(), role: Text(), protected: Text() }),
    back: () => PATH,
    handle: async (c) => {
      const inv = await inviteUser(
        ctx,
        c.account,
        {
          email: c.form.email ?? '',
          role: c.form.role ?? '',
          canReadProtected: c.form.protected === 'yes',
        },
        c.actor,
        c.ip,
      );
      const flash = inv.mailed
        ? { kind: 'success' as const, text: `Invitation sent to ${inv.user.email}.` }
        : {
            kind: 'info' as const,
            text: `The account has no verified domain to send mail from. Give ${inv.user.email} this one-time link: ${inv.url}`,
          };
      return { redirect: PATH, flash };
    },
  });
}

/** Registers the changes to one member: role, protected-content permission, disable and enable. */
function registerMemberActions(app: FastifyInstance, ctx: AppContext): void {
  const db = ctx.database.db;
  const member = (c: ConsoleContext) => memberOf(db, c.account.customer_id, c.params.id!);
  consoleAction(app, ctx, {
    path: `${PATH}/:id/role`,
    permission: 'manage_users',
    body: Form({ role: Text() }),
    back: () => PATH,
    handle: async (c) => {
      const u = await member(c);
      await changeRole(db, u, c.form.role ?? '', c.actor, c.ip);
      return { redirect: PATH, flash: `${u.email} is now ${c.form.role}.` };
    },
  });
  consoleAction(app, ctx, {
    path: `${PATH}/:id/protected`,
    permission: 'manage_users',
    body: Form({ granted: Text() }),
    back: () => PATH,
    handle: async (c) => {
      const u = await member(c);
      const granted = c.form.granted === 'yes';
      await setProtectedPermission(db, u, granted, c.actor, c.ip);
      return {
        redirect: PATH,
        flash: `${u.email} ${granted ? 'may now read' : 'no longer reads'} protected content.`,
      };
    },
  });
  consoleAction(app, ctx, {
    path: `${PATH}/:id/disable`,
    permission: 'manage_users',
    body: NoFields,
    back: () => PATH,
    handle: async (c) => {
      const u = await member(c);
      await disableUser(db, u, c.actor, c.ip);
      return { redirect: PATH, flash: `${u.email} is disabled.` };
    },
  });
  consoleAction(app, ctx, {
    path: `${PATH}/:id/enable`,
    permission: 'manage_users',
    body: NoFields,
    back: () => PATH,
    handle: async (c) => {
      const u = await member(c);
      await enableUser(db, u, c.actor, c.ip);
      return { redirect: PATH, flash: `${u.email} is enabled.` };
    },
  });
}
