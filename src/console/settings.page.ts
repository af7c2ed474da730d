/** The settings hub at `/console/settings`: links to the account's settings pages a user may open. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { html } from './html.ts';
import { consolePage } from './page.ts';

/** Registers the settings hub. */
export function settingsPages(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/settings',
    permission: 'read',
    title: 'Settings',
    render: async (c) =>
      html`<div class="card">
          <h2>Your sign-in</h2>
          <p><a href="/console/settings/two-factor">Two-factor authentication</a> — ${c.user.totpEnabled ? 'on' : 'off'}</p>
        </div>
        ${
          c.can('manage_users')
            ? html`<div class="card">
                <h2>People and records</h2>
                <ul>
                  <li><a href="/console/settings/users">Users and roles</a></li>
                  <li><a href="/console/settings/audit">Audit trail</a></li>
                </ul>
              </div>`
            : ''
        }`,
  });
}
