/**
 * A list's settings on its page (`/console/audiences/lists/:id`): double opt-in with the sender of its confirmation
 * emails, and whether subscribers see the list on their preference page. Changing needs `edit_content`; audited.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { ListRow } from '../../marketing/lists/lists.repository.ts';
import { setListOptIn } from '../../marketing/optin/optin.service.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { consoleAction, type ConsoleContext } from '../page.ts';
import { audited, field, seg } from './audit.ts';
import { Form, Text } from '../action.schemas.ts';

/** The settings card of a list (read-only for those who may not change it). */
export function listSettingsCard(c: ConsoleContext, list: ListRow): SafeHtml {
  const optIn = list.double_opt_in === 1;
  const shown = list.public === 1;
  if (!c.can('edit_content'))
    return html`<div class="card">
      <h2>Settings</h2>
      <p>Double opt-in: <strong>${optIn ? 'on' : 'off'}</strong>. On the preference page: <strong>${shown ? 'yes' : 'no'}</strong>.</p>
    </div>`;
  return html`<div class="card">
    <h2>Settings</h2>
    <form method="post" action="/console/audiences/lists/${seg(list.uuid)}/settings">
      ${csrfField(c.csrfToken)}
      <div class="check">
        <input type="checkbox" id="double-opt-in" name="double_opt_in" value="yes" ${optIn ? html`checked` : ''} />
        <label for="double-opt-in">Double opt-in: new members must confirm by email before they receive campaigns</label>
      </div>
      <div class="field">
        <label for="confirm-from">Confirmation emails come from</label>
        <input type="email" id="confirm-from" name="confirm_from_email" value="${list.confirm_from_email ?? ''}" placeholder="news@your-domain.example" />
        <p class="hint">An address on a verified domain. Members already on the list count as confirmed.</p>
      </div>
      <div class="check">
        <input type="checkbox" id="list-public" name="public" value="yes" ${shown ? html`checked` : ''} />
        <label for="list-public">Offer this list on subscribers’ preference page</label>
      </div>
      <p><button type="submit">Save settings</button></p>
    </form>
  </div>`;
}

/** Registers the settings action of a list. */
export function listSettingsAction(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/audiences/lists/:id/settings',
    permission: 'edit_content',
    body: Form({ double_opt_in: Text(), confirm_from_email: Text(), public: Text() }),
    handle: async (c) => {
      const doubleOptIn = field(c, 'double_opt_in') === 'yes';
      const fromEmail = field(c, 'confirm_from_email');
      const list = await setListOptIn(ctx, c.account.customer_id, c.params.id!, {
        doubleOptIn,
        public: field(c, 'public') === 'yes',
        ...(fromEmail && { fromEmail }),
      });
      await audited(c, 'list.settings', `list:${list.uuid}`, {
        double_opt_in: doubleOptIn,
        public: list.public === 1,
      });
      return {
        redirect: `/console/audiences/lists/${seg(list.uuid)}`,
        flash: 'The list settings were saved.',
      };
    },
  });
}
