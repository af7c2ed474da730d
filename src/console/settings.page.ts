/** The settings hub at `/console/settings`: links to the account's settings pages a user may open, and how long data is kept. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { html } from '../http/html.ts';
import { consolePage } from './page.ts';

const days = (n: number) => `${n.toLocaleString('en-US')} day${n === 1 ? '' : 's'}`;

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
        <div class="card">
          <h2>Brand</h2>
          <p>
            <a href="/console/settings/brand">Brand</a>: the name, logo, colour and postal address on public pages and
            system emails. <a href="/console/settings/images">Image library</a>: logos and pictures for emails.
          </p>
        </div>
        <div class="card">
          <h2>Mail</h2>
          <p>
            <a href="/console/settings/suppressions">Suppression list</a>: addresses that bounced for good or complained, which later
            messages skip.
          </p>
        </div>
        <section class="card" aria-labelledby="retention-heading">
          <h2 id="retention-heading">Retention</h2>
          <p class="muted">How long Sealpost keeps data, set for the whole installation by its operator.</p>
          <dl class="retention">
            <div>
              <dt>Message content (bodies, attachments, captured copies)</dt>
              <dd>${days(ctx.config.contentRetentionDays)} after the message is finished; receipts stay</dd>
            </div>
            <div>
              <dt>Audit trail entries</dt>
              <dd>${days(ctx.config.auditRetentionDays)}</dd>
            </div>
            <div>
              <dt>Finished background work</dt>
              <dd>${days(ctx.config.jobRetentionDays)}</dd>
            </div>
          </dl>
        </section>
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
