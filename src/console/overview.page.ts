/** The overview page at `/console`: who is signed in, in which account, with what role. The delivery figures join it here. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { html } from './html.ts';
import { consolePage } from './page.ts';

/** Registers the overview. */
export function overviewPages(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console',
    permission: 'read',
    title: 'Overview',
    render: async (c) =>
      html`<div class="card">
        <p>Signed in as <strong>${c.user.email}</strong>, ${c.user.role} of the account <strong>${c.account.username}</strong>.</p>
        <p class="muted">
          ${c.can('read_protected') ? 'You may read protected content (message bodies, form submissions, exports); every view is recorded in the audit trail.' : 'Protected content (message bodies, form submissions, exports) stays hidden from you; an owner can grant access.'}
        </p>
      </div>`,
  });
}
