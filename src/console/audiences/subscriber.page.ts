/** One subscriber's console page: details, subscriptions and campaign activity, and the actions that change them. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { listsOf } from '../../marketing/lists/lists.service.ts';
import {
  changeSubscriber,
  setSubscribed,
  subscriberOf,
} from '../../marketing/subscribers/subscribers.service.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from '../page.ts';
import { audited, field, seg } from './audit.ts';
import { Form, Text, Repeated } from '../action.schemas.ts';

/** Registers one subscriber's page and its actions. */
export function subscriberPages(app: FastifyInstance, ctx: AppContext): void {
  registerSubscriberPage(app, ctx);
  registerSubscriberActions(app, ctx);
}

/** Registers one subscriber's page. */
function registerSubscriberPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/audiences/subscribers/:id',
    permission: 'read',
    title: 'Subscriber',
    render: async (c) => {
      const s = await subscriberOf(ctx, c.account.customer_id, c.params.id!, true);
      const lists = (await listsOf(ctx, c.account.customer_id)).data;
      return { title: `Subscriber: ${s.attributes.email}`, body: subscriberBody(c, s, lists) };
    },
  });
}

/** Registers the actions of a subscriber's page: save the details, change a subscription. */
function registerSubscriberActions(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/audiences/subscribers/:id',
    permission: 'edit_content',
    body: Form({
      email: Text(),
      first_name: Text(),
      last_name: Text(),
      phone_number: Text(),
      field_name: Repeated(),
      field_value: Repeated(),
    }),
    handle: async (c) => {
      const names = [c.form.field_name ?? []].flat();
      const values = [c.form.field_value ?? []].flat();
      const custom = names.map((name, i) => ({ name, value: values[i] ?? '' })).filter((f) => f.name.trim());
      const s = await changeSubscriber(ctx, c.account.customer_id, c.params.id!, {
        email: field(c, 'email'),
        first_name: field(c, 'first_name'),
        last_name: field(c, 'last_name'),
        phone_number: field(c, 'phone_number'),
        custom_fields: custom,
      });
      await audited(c, 'subscriber.update', `subscriber:${s.id}`);
      return { redirect: `/console/audiences/subscribers/${seg(s.id)}`, flash: 'The subscriber was saved.' };
    },
  });

  consoleAction(app, ctx, {
    path: '/console/audiences/subscribers/:id/subscription',
    permission: 'edit_content',
    body: Form({ subscribed: Text(), list: Text() }),
    handle: async (c) => {
      const subscribed = field(c, 'subscribed') === 'yes';
      const list = field(c, 'list') || undefined;
      const s = await setSubscribed(ctx, c.account.customer_id, c.params.id!, subscribed, list);
      await audited(
        c,
        subscribed ? 'subscriber.resubscribe' : 'subscriber.unsubscribe',
        `subscriber:${s.id}`,
        { list: list ?? null },
      );
      return {
        redirect: `/console/audiences/subscribers/${seg(s.id)}`,
        flash: subscribed ? 'The subscriber is subscribed.' : 'The subscriber is unsubscribed.',
      };
    },
  });
}

type Full = Awaited<ReturnType<typeof subscriberOf>>;
type Lists = Awaited<ReturnType<typeof listsOf>>['data'];

/** One subscriber's page: details, subscriptions and campaign activity. */
function subscriberBody(c: ConsoleContext, s: Full, lists: Lists): SafeHtml {
  const a = s.attributes;
  return html`<p><a href="/console/audiences">← All lists</a></p>
    ${detailsCard(c, s)} ${subscriptionsCard(c, s, lists)}
    ${
      a.statistics
        ? html`<div class="card">
            <h2>Campaign activity</h2>
            <p>
              ${a.statistics.delivered} delivered · ${a.statistics.opened} opened · ${a.statistics.clicked} clicked ·
              ${a.statistics.hard_bounced + a.statistics.soft_bounced} bounced
            </p>
          </div>`
        : ''
    }`;
}

/** The subscriber's details form: email, names, phone and custom fields (read only without `edit_content`). */
function detailsCard(c: ConsoleContext, s: Full): SafeHtml {
  const a = s.attributes;
  const edit = c.can('edit_content');
  const dis = edit ? '' : html`disabled`;
  return html`<div class="card">
    <h2>Details</h2>
    <form method="post" action="/console/audiences/subscribers/${seg(s.id)}">
      ${csrfField(c.csrfToken)}
      <div class="field">
        <label for="s-email">Email</label><input id="s-email" name="email" type="email" value="${a.email}" required ${dis} />
      </div>
      <div class="field">
        <label for="s-first">First name</label><input type="text" id="s-first" name="first_name" value="${a.first_name ?? ''}" ${dis} />
      </div>
      <div class="field">
        <label for="s-last">Last name</label><input type="text" id="s-last" name="last_name" value="${a.last_name ?? ''}" ${dis} />
      </div>
      <div class="field">
        <label for="s-phone">Phone</label><input type="text" id="s-phone" name="phone_number" value="${a.phone_number ?? ''}" ${dis} />
      </div>
      <h3>Custom fields</h3>
      ${[
        ...a.custom_fields.map((f) => ({ name: f.custom_field_name, value: f.custom_field_value })),
        { name: '', value: '' },
      ].map(
        (f, i) =>
          html`<div class="field">
            <label for="cf-name-${i}">Field name${f.name ? '' : ' (new)'}</label>
            <input type="text" id="cf-name-${i}" name="field_name" value="${f.name}" ${dis} />
            <label for="cf-value-${i}">Value</label>
            <input type="text" id="cf-value-${i}" name="field_value" value="${f.value}" ${dis} />
          </div>`,
      )}
      ${edit ? html`<button type="submit" class="button">Save</button>` : ''}
    </form>
  </div>`;
}

/** The subscriber's lists with subscribe and unsubscribe buttons, and the form that adds them to another list. */
function subscriptionsCard(c: ConsoleContext, s: Full, lists: Lists): SafeHtml {
  const a = s.attributes;
  const edit = c.can('edit_content');
  const action = `/console/audiences/subscribers/${seg(s.id)}`;
  const toggle = (subscribed: boolean, list: string | number | undefined, label: string) =>
    html`<form class="inline" method="post" action="${action}/subscription">
      ${csrfField(c.csrfToken)}<input type="hidden" name="subscribed" value="${subscribed ? 'yes' : 'no'}" />
      ${list ? html`<input type="hidden" name="list" value="${list}" />` : ''}
      <button type="submit" ${subscribed ? '' : html`class="danger"`}>${label}</button>
    </form>`;
  const member = new Set(a.subscription_lists.map((l) => l.id));
  return html`<div class="card">
    <h2>Subscriptions</h2>
    <p>
      ${a.unsubscribed ? 'Unsubscribed from everything: receives no campaign.' : 'Receives campaigns of the lists below.'}
      ${edit ? (a.unsubscribed ? toggle(true, undefined, 'Resubscribe to everything') : toggle(false, undefined, 'Unsubscribe from everything')) : ''}
    </p>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">List</th>
            <th scope="col">Status</th>
            ${edit ? html`<th scope="col">Change</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${a.subscription_lists.map(
            (l) =>
              html`<tr>
                <td>${l.name}</td>
                <td>${l.unsubscribed ? 'Unsubscribed' : 'Subscribed'}</td>
                ${edit ? html`<td>${l.unsubscribed ? toggle(true, l.id, 'Resubscribe') : toggle(false, l.id, 'Unsubscribe')}</td>` : ''}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${
      edit && lists.some((l) => !member.has(l.id))
        ? html`<form method="post" action="${action}/subscription">
            ${csrfField(c.csrfToken)}<input type="hidden" name="subscribed" value="yes" />
            <div class="field">
              <label for="add-to">Add to list</label>
              <select id="add-to" name="list">
                ${lists.filter((l) => !member.has(l.id)).map((l) => html`<option value="${l.id}">${l.attributes.name}</option>`)}
              </select>
            </div>
            <button type="submit">Add to list</button>
          </form>`
        : ''
    }
  </div>`;
}
