/**
 * Campaigns at `/console/campaigns`: the account's mailings with their counters and a form to write a new one
 * (compose.ts: the default layout, personalisation fields from a menu, the postal address); a mailing's page with a
 * preview as a chosen subscriber, a test send and a send to a list now or at a time (UTC shown). Looking needs `read`; writing and sending need `edit_content`. Each change is
 * audited. A send's live page is in send.page.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { listsOf } from '../../marketing/lists/lists.service.ts';
import {
  changeMailing,
  createMailing,
  duplicateMailing,
  mailingOf,
  mailingsOf,
  removeMailing,
} from '../../marketing/mailings/mailings.service.ts';
import { sendTestEmail } from '../../marketing/mailings/test-email.ts';
import { sendsOfMailing } from '../../marketing/campaigns/sends.service.ts';
import { mailingWasSent } from '../../marketing/campaigns/audience.ts';
import { AppError } from '../../errors/app-error.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { deliveredLabel } from '../format.ts';
import { consoleAction, consolePage, type ConsoleContext } from '../page.ts';
import { composeData, composeForm, composeRoutes, postalCard, previewCard } from './compose.ts';
import { audited, field, seg } from '../audiences/audit.ts';
import { textOfHtml } from '../../mail/text-part.ts';
import { Form, Text } from '../action.schemas.ts';
import { sendReviewPages } from './send-review.page.ts';
import { blockEditorRoutes, postedContent } from './block-editor.ts';

/** Registers the campaigns pages and actions. */
export function campaignsPages(app: FastifyInstance, ctx: AppContext): void {
  composeRoutes(app, ctx);
  blockEditorRoutes(app, ctx);
  registerCampaignsPage(app, ctx);
  registerCreateMailing(app, ctx);
  registerMailingPage(app, ctx);
  registerMailingActions(app, ctx);
  registerMailingChanges(app, ctx);
  sendReviewPages(app, ctx);
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
      return html`${mailingsCard(mailings, deliveredLabel(ctx).label)}
        ${c.can('edit_content') ? html`${composeForm(c, data)} ${postalCard(c, data.postalAddress)}` : ''}`;
    },
  });
}

/** The card with the table of mailings and their counters. */
function mailingsCard(mailings: Mailings, delivered: string): SafeHtml {
  return html`<div class="card">
    <h2>Mailings</h2>
    <div class="table-wrap">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Subject</th>
            <th scope="col">Sent</th>
            <th scope="col">${delivered}</th>
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
                <td data-label="${delivered}">${m.attributes.delivered_count}</td>
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
    body: MAILING_FORM,
    back: () => '/console/campaigns',
    handle: async (c) => {
      const m = await createMailing(ctx, c.account.customer_id, postedMailing(c));
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
      const [m, lists, sends, sent] = await Promise.all([
        mailingOf(ctx, c.account.customer_id, c.params.id!),
        listsOf(ctx, c.account.customer_id).then((r) => r.data),
        sendsOfMailing(ctx, c.account.customer_id, c.params.id!),
        mailingWasSent(ctx, c.account.customer_id, c.params.id!),
      ]);
      const preview = await previewCard(c, m.id);
      const editor = c.can('edit_content');
      const content =
        editor && !sent
          ? composeForm(c, await composeData(ctx, c.account.customer_id), {
              id: String(m.id),
              ...m.attributes,
            })
          : contentCard(m, sent);
      return {
        title: `Mailing: ${m.attributes.subject}`,
        body: html`<p><a href="/console/campaigns">← All mailings</a></p>
          ${content} ${preview} ${editor ? testForm(c, m) : ''} ${editor && !sent ? sendForm(c, m, lists) : ''}
          ${sendsCard(sends, deliveredLabel(ctx).label)} ${editor ? mailingTools(c, m, sent) : ''}`,
      };
    },
  });
}

/** The mailing's sender and its HTML and text parts, read only. */
function contentCard(m: Mailing, sent: boolean): SafeHtml {
  return html`<div class="card">
    <h2>Content</h2>
    ${
      sent
        ? html`<p class="flash flash-info">
            This mailing was sent, so it can no longer change. Duplicate it (at the bottom of the page) to send it again.
          </p>`
        : ''
    }
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

/** The test send form. */
function testForm(c: ConsoleContext, m: Mailing): SafeHtml {
  return html`<div class="card">
    <h2>Test send</h2>
    <form method="post" action="/console/campaigns/mailings/${seg(m.id)}/test">
      ${csrfField(c.csrfToken)}
      <div class="field">
        <label for="test-to">Send a test to</label><input id="test-to" name="to_email" type="email" required />
      </div>
      <button type="submit">Send test</button>
    </form>
  </div>`;
}

/** A list as the send menu names it; the account's list of everyone says so. */
const listLabel = (l: Lists[number]) =>
  `${l.attributes.is_default ? `Every contact in the account (${l.attributes.name})` : l.attributes.name} (${l.attributes.subscriber_count})`;

/** The form that asks for a list and a time, then shows the review before anything is sent. */
function sendForm(c: ConsoleContext, m: Mailing, lists: Lists): SafeHtml {
  return html`<div class="card">
    <h2>Send</h2>
    <form method="get" action="/console/campaigns/mailings/${seg(m.id)}/review">
      <div class="field">
        <label for="send-list">To list</label>
        <select id="send-list" name="list" required>
          <option value="">Choose a list…</option>
          ${lists.map((l) => html`<option value="${l.id}">${listLabel(l)}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="send-at">Send at, in your time zone (<span data-time-zone-name>UTC</span>); empty sends now</label>
        <input id="send-at" name="send_at" type="datetime-local" />
        <input type="hidden" name="tz" value="UTC" data-time-zone />
      </div>
      <p class="hint">The next page shows who gets it and when; nothing is sent before you confirm there.</p>
      <button type="submit" class="button">Review the send</button>
    </form>
  </div>`;
}

/** Duplicate, and for a mailing never sent, delete. */
function mailingTools(c: ConsoleContext, m: Mailing, sent: boolean): SafeHtml {
  const base = `/console/campaigns/mailings/${seg(m.id)}`;
  return html`<div class="card">
    <h2>This mailing</h2>
    <form method="post" action="${base}/duplicate" data-once>
      ${csrfField(c.csrfToken)}
      <button type="submit">Duplicate</button>
    </form>
    ${
      sent
        ? ''
        : html`<form method="post" action="${base}/delete" data-confirm="Delete this mailing? This cannot be undone.">
            ${csrfField(c.csrfToken)}
            <button type="submit" class="danger">Delete mailing</button>
          </form>`
    }
  </div>`;
}

/** The card with the mailing's sends: when, to which list, their state and counters. */
function sendsCard(sends: Sends, delivered: string): SafeHtml {
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
            <th scope="col">${delivered}</th>
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
                  <a href="/console/campaigns/sends/${s.id}"
                    >${new Date(Number(s.send_at)).toISOString().slice(0, 16).replace('T', ' ')} UTC</a
                  >
                </td>
                <td data-label="List">${s.subscription_list_name}</td>
                <td data-label="State">${s.state}</td>
                <td data-label="Sent">${Number(s.sent_count)}</td>
                <td data-label="${delivered}">${Number(s.delivered_count)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </div>`;
}

/** Registers a mailing's test send. */
function registerMailingActions(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/campaigns/mailings/:id/test',
    permission: 'edit_content',
    body: Form({ to_email: Text() }),
    handle: async (c) => {
      const to = field(c, 'to_email').trim();
      const m = await mailingOf(ctx, c.account.customer_id, c.params.id!);
      await sendTestEmail(ctx, { customerId: c.account.customer_id, domain: null }, m.id, to);
      await audited(c, 'mailing.test_send', `mailing:${m.id}`, { to });
      return {
        redirect: `/console/campaigns/mailings/${seg(m.id)}`,
        flash: `A test was sent to ${to}.`,
      };
    },
  });
}

/** A mailing's fields as the compose form posts them. */
const MAILING_FORM = Form({
  subject: Text(),
  from_email: Text(),
  from_name: Text(),
  html_part: Text(),
  text_part: Text(),
  editor_mode: Text(16),
  content_blocks: Text(1_000_000),
  markdown: Text(200_000),
});

/** The mailing as the compose form posted it; the text part is made from the HTML when left empty. */
function postedMailing(c: ConsoleContext) {
  const content = postedContent(c);
  const text = field(c, 'text_part');
  return {
    subject: field(c, 'subject'),
    from_email: field(c, 'from_email'),
    from_name: field(c, 'from_name') || undefined,
    ...content,
    // A block document makes its own text part; HTML gets one made from it.
    ...(text.trim()
      ? { text_part: text }
      : content.html_part !== undefined && { text_part: textOfHtml(content.html_part) }),
  };
}

/** Refuses to change a mailing that was sent: what went out stays as it was. */
async function requireUnsent(c: ConsoleContext): Promise<number> {
  const m = await mailingOf(c.ctx, c.account.customer_id, c.params.id!);
  if (await mailingWasSent(c.ctx, c.account.customer_id, m.id))
    throw new AppError(
      'marketing.mailing_sent',
      'this mailing was sent and can no longer change; duplicate it',
    );
  return m.id;
}

/** Registers editing a mailing not sent yet, duplicating any mailing, and deleting one never sent. */
function registerMailingChanges(app: FastifyInstance, ctx: AppContext): void {
  const page = (c: ConsoleContext) => `/console/campaigns/mailings/${seg(c.params.id!)}`;
  consoleAction(app, ctx, {
    path: '/console/campaigns/mailings/:id/edit',
    permission: 'edit_content',
    body: MAILING_FORM,
    back: page,
    handle: async (c) => {
      const id = await requireUnsent(c);
      const m = await changeMailing(ctx, c.account.customer_id, id, postedMailing(c));
      await audited(c, 'mailing.change', `mailing:${m.id}`, { subject: m.attributes.subject });
      return { redirect: `/console/campaigns/mailings/${seg(m.id)}`, flash: 'The mailing was saved.' };
    },
  });
  consoleAction(app, ctx, {
    path: '/console/campaigns/mailings/:id/duplicate',
    permission: 'edit_content',
    body: Form({}),
    back: page,
    handle: async (c) => {
      const copy = await duplicateMailing(ctx, c.account.customer_id, c.params.id!);
      await audited(c, 'mailing.duplicate', `mailing:${copy.id}`, { from: c.params.id });
      return {
        redirect: `/console/campaigns/mailings/${seg(copy.id)}`,
        flash: `This copy is not sent yet; its subject is “${copy.attributes.subject}” until you change it.`,
      };
    },
  });
  consoleAction(app, ctx, {
    path: '/console/campaigns/mailings/:id/delete',
    permission: 'edit_content',
    body: Form({}),
    back: page,
    handle: async (c) => {
      const id = await requireUnsent(c);
      await removeMailing(ctx, c.account.customer_id, id);
      await audited(c, 'mailing.delete', `mailing:${id}`);
      return { redirect: '/console/campaigns', flash: 'The mailing was deleted.' };
    },
  });
}
