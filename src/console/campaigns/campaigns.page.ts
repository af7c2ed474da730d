/**
 * Campaigns at `/console/campaigns`: the account's mailings with their counters and a form to write a new one
 * (compose.ts: the default layout, personalisation fields from a menu, the postal address); a mailing's page with a
 * preview as a chosen subscriber, a test send and a send to a list now or at a time (UTC shown). Looking needs `read`; writing and sending need `edit_content`. Each change is
 * audited. A send's live page is in send.page.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { convert as Convert } from 'html-to-text';
import type { AppContext } from '../../context.ts';
import { listsOf } from '../../marketing/lists/lists.service.ts';
import { createMailing, mailingOf, mailingsOf } from '../../marketing/mailings/mailings.service.ts';
import { sendTestEmail } from '../../marketing/mailings/test-email.ts';
import { createSend, sendsOfMailing } from '../../marketing/campaigns/sends.service.ts';
import { AppError } from '../../errors/app-error.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from '../page.ts';
import { composeData, composeForm, composeRoutes, postalCard, previewCard } from './compose.ts';
import { audited, field, seg } from '../audiences/audit.ts';
import { onFirstUse } from '../../on-first-use.ts';
import { Form, Text } from '../action.schemas.ts';

const htmlToText = onFirstUse<{ convert: typeof Convert }>('html-to-text');

/** Registers the campaigns pages and actions. */
export function campaignsPages(app: FastifyInstance, ctx: AppContext): void {
  composeRoutes(app, ctx);
  registerCampaignsPage(app, ctx);
  registerCreateMailing(app, ctx);
  registerMailingPage(app, ctx);
  registerMailingActions(app, ctx);
}

type Mailings = Awaited<ReturnType<typeof mailingsOf>>;
type Mailing = Awaited<ReturnType<typeof mailingOf>>;
type Lists = Awaited<ReturnType<typeof listsOf>>['data'];
type Sends = Awaited<ReturnType<typeof sendsOfMailing>>;

/** Registers the campaigns page: the latest mailings and, with `edit_content`, the compose form. */
function registerCampaignsPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/campaigns',
    permission: 'read',
    title: 'Campaigns',
    render: async (c) => {
      const data = await composeData(ctx, c.account.customer_id);
      const mailings = await mailingsOf(ctx, c.account.customer_id, {
        order_by: 'created_at',
        order: 'desc',
        items: 50,
        page: 1,
        pagination: true,
      });
      return html`${mailingsCard(mailings)}
        ${c.can('edit_content') ? html`${composeForm(c, data)} ${postalCard(c, data.postalAddress)}` : ''}`;
    },
  });
}

/** The card with the table of mailings and their counters. */
function mailingsCard(mailings: Mailings): SafeHtml {
  return html`<div class="card">
    <h2>Mailings</h2>
    <div class="table-wrap">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Subject</th>
            <th scope="col">Sent</th>
            <th scope="col">Delivered</th>
            <th scope="col">Opened</th>
            <th scope="col">Clicked</th>
          </tr>
        </thead>
        <tbody>
          ${
            mailings.length === 0
              ? html`<tr>
                  <td colspan="5">No mailings yet.</td>
                </tr>`
              : ''
          }
          ${mailings.map(
            (m) =>
              html`<tr>
                <td data-label="Subject">
                  <a href="/console/campaigns/mailings/${seg(m.id)}">${m.attributes.subject}</a>
                </td>
                <td data-label="Sent">${m.attributes.sent_count}</td>
                <td data-label="Delivered">${m.attributes.delivered_count}</td>
                <td data-label="Opened">${m.attributes.viewed_count}</td>
                <td data-label="Clicked">${m.attributes.clicked_count}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <p class="actions">
      <a href="/console/campaigns/compare">Compare two sends</a>
      <a href="/console/campaigns/drips">Drip campaigns</a>
    </p>
  </div>`;
}

/** Registers the action that saves a new mailing (the text part made from the HTML when left empty). */
function registerCreateMailing(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/campaigns/mailings',
    permission: 'edit_content',
    body: Form({
      subject: Text(),
      from_email: Text(),
      from_name: Text(),
      html_part: Text(),
      text_part: Text(),
    }),
    back: () => '/console/campaigns',
    handle: async (c) => {
      const m = await createMailing(ctx, c.account.customer_id, {
        subject: field(c, 'subject'),
        from_email: field(c, 'from_email'),
        from_name: field(c, 'from_name') || undefined,
        html_part: field(c, 'html_part'),
        text_part: field(c, 'text_part').trim() ? field(c, 'text_part') : textOf(field(c, 'html_part')),
      });
      await audited(c, 'mailing.create', `mailing:${m.id}`, { subject: m.attributes.subject });
      return { redirect: `/console/campaigns/mailings/${seg(m.id)}`, flash: 'The mailing was saved.' };
    },
  });
}

/** Registers a mailing's page: content, preview, test send and send forms, and its sends. */
function registerMailingPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/campaigns/mailings/:id',
    permission: 'read',
    title: 'Mailing',
    render: async (c) => {
      const [m, lists, sends] = await Promise.all([
        mailingOf(ctx, c.account.customer_id, c.params.id!),
        listsOf(ctx, c.account.customer_id).then((r) => r.data),
        sendsOfMailing(ctx, c.account.customer_id, c.params.id!),
      ]);
      const preview = await previewCard(c, m.id);
      return {
        title: `Mailing: ${m.attributes.subject}`,
        body: html`<p><a href="/console/campaigns">← All mailings</a></p>
          ${contentCard(m)} ${preview} ${c.can('edit_content') ? sendForms(c, m, lists) : ''} ${sendsCard(sends)}`,
      };
    },
  });
}

/** The mailing's sender and its HTML and text parts. */
function contentCard(m: Mailing): SafeHtml {
  return html`<div class="card">
    <h2>Content</h2>
    <p>From <strong>${m.attributes.from_name ?? ''} ${m.attributes.from_email ?? ''}</strong></p>
    <details>
      <summary>HTML</summary>
      <pre class="mono">${m.attributes.html_part ?? ''}</pre>
    </details>
    <details>
      <summary>Text</summary>
      <pre class="mono">${m.attributes.text_part ?? '(generated from the HTML when sent)'}</pre>
    </details>
  </div>`;
}

/** The test send form and the form that sends the mailing to a list now or at a time. */
function sendForms(c: ConsoleContext, m: Mailing, lists: Lists): SafeHtml {
  const action = `/console/campaigns/mailings/${seg(m.id)}`;
  return html`<div class="card">
      <h2>Test send</h2>
      <form method="post" action="${action}/test">
        ${csrfField(c.csrfToken)}
        <div class="field">
          <label for="test-to">Send a test to</label><input id="test-to" name="to_email" type="email" required />
        </div>
        <button type="submit">Send test</button>
      </form>
    </div>
    <div class="card">
      <h2>Send</h2>
      <form method="post" action="${action}/send">
        ${csrfField(c.csrfToken)}
        <div class="field">
          <label for="send-list">To list</label>
          <select id="send-list" name="list">
            ${lists.map((l) => html`<option value="${l.id}">${l.attributes.name} (${l.attributes.subscriber_count})</option>`)}
          </select>
        </div>
        <div class="field">
          <label for="send-at">Send at (time zone UTC; empty sends now)</label>
          <input id="send-at" name="send_at" type="datetime-local" />
        </div>
        <button type="submit" class="button">Send</button>
      </form>
    </div>`;
}

/** The card with the mailing's sends: when, to which list, their state and counters. */
function sendsCard(sends: Sends): SafeHtml {
  return html`<div class="card">
    <h2>Sends</h2>
    <div class="table-wrap">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Send</th>
            <th scope="col">List</th>
            <th scope="col">State</th>
            <th scope="col">Sent</th>
            <th scope="col">Delivered</th>
          </tr>
        </thead>
        <tbody>
          ${
            sends.length === 0
              ? html`<tr>
                  <td colspan="5">Not sent yet.</td>
                </tr>`
              : ''
          }
          ${sends.map(
            (s) =>
              html`<tr>
                <td data-label="Send">
                  <a href="/console/campaigns/sends/${seg(s.uuid)}"
                    >${new Date(Number(s.send_at)).toISOString().slice(0, 16).replace('T', ' ')} UTC</a
                  >
                </td>
                <td data-label="List">${s.subscription_list_name}</td>
                <td data-label="State">${s.state}</td>
                <td data-label="Sent">${Number(s.sent_count)}</td>
                <td data-label="Delivered">${Number(s.delivered_count)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </div>`;
}

/** Registers a mailing's actions: send a test, send to a list (now or scheduled). */
function registerMailingActions(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/campaigns/mailings/:id/test',
    permission: 'edit_content',
    body: Form({ to_email: Text() }),
    handle: async (c) => {
      const to = field(c, 'to_email').trim();
      await sendTestEmail(ctx, { customerId: c.account.customer_id, domain: null }, c.params.id!, to);
      await audited(c, 'mailing.test_send', `mailing:${c.params.id!}`, { to });
      return {
        redirect: `/console/campaigns/mailings/${seg(c.params.id!)}`,
        flash: `A test was sent to ${to}.`,
      };
    },
  });

  consoleAction(app, ctx, {
    path: '/console/campaigns/mailings/:id/send',
    permission: 'edit_content',
    body: Form({ send_at: Text(), list: Text() }),
    handle: async (c) => {
      const at = field(c, 'send_at').trim();
      const sendAt = at ? Date.parse(`${at}Z`) : undefined;
      if (sendAt !== undefined && Number.isNaN(sendAt))
        throw new AppError('request.invalid', 'the send time is not a date and time');
      const s = await createSend(ctx, c.account.customer_id, {
        mailingId: c.params.id!,
        listId: field(c, 'list'),
        sendAt,
      });
      await audited(c, sendAt ? 'send.schedule' : 'send.start', `send:${s.uuid}`, {
        mailing: c.params.id,
        list: field(c, 'list'),
      });
      return {
        redirect: `/console/campaigns/sends/${seg(s.uuid)}`,
        flash: sendAt ? 'The send is scheduled.' : 'The send has started.',
      };
    },
  });
}

/** The text part made from the HTML; headings keep their case so personalisation fields stay intact. */
function textOf(htmlPart: string): string {
  const heading = { options: { uppercase: false } };
  return htmlToText().convert(htmlPart, {
    wordwrap: 78,
    selectors: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, ...heading })),
  });
}
