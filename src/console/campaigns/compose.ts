/**
 * Writing a mailing in the console: the new-mailing form (it starts from the default layout), the menu of
 * personalisation fields (a plain list without JavaScript; compose.js adds buttons that insert a field where the cursor
 * is), the account's postal address for the footer, and a mailing previewed as a chosen subscriber in a sandboxed frame.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { changeSettings, postalAddressOf } from '../../accounts/settings.service.ts';
import { fieldTypesOf } from '../../marketing/subscribers/field-types.service.ts';
import { DEFAULT_LAYOUT, EMAIL_FIELDS } from '../../marketing/campaigns/layout.ts';
import { previewMailing, type MailingPreview } from '../../marketing/campaigns/preview.ts';
import { assetUrl, unsavedChangesScript } from '../assets.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { consoleAction, guard, type ConsoleContext } from '../page.ts';
import { sendMailFrame } from '../mail-frame.ts';
import { field, seg } from '../audiences/audit.ts';
import { Form, Text } from '../action.schemas.ts';
import { editorFields, editorPreview } from './block-editor.ts';
import type { BlockDocument } from '../../mail/blocks/blocks.schemas.ts';

/** The subscriber's own fields, with what the menu calls them. */
const SUBSCRIBER_FIELDS: [string, string][] = [
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['email', 'Email address'],
];
const EMAIL_FIELD_LABELS: Record<(typeof EMAIL_FIELDS)[number], string> = {
  unsubscribe_url: 'Unsubscribe link',
  preferences_url: 'Preference page link',
  view_in_browser_url: 'View in browser link',
  postal_address: 'Your postal address',
};

/** What the compose form needs from the account. */
export interface ComposeData {
  customFields: string[];
  postalAddress: string | null;
}

/** Loads the account's custom field names and postal address. */
export async function composeData(ctx: AppContext, customerId: number): Promise<ComposeData> {
  const [fields, postalAddress] = await Promise.all([
    fieldTypesOf(ctx, customerId),
    postalAddressOf(ctx, customerId),
  ]);
  return { customFields: fields.map((f) => f.attributes.name), postalAddress };
}

/** A field as a merge tag: plain names bare, others (spaces, dashes) through `custom_fields`. */
const tagOf = (name: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
    ? `{{${name}}}`
    : `{{[custom_fields].[${name.replace(/[\]]/g, '')}]}}`;

function menuGroup(title: string, items: [string, string][]): SafeHtml {
  return html`<div class="field-group">
    <h3>${title}</h3>
    <ul class="field-menu">
      ${items.map(
        ([tag, label]) =>
          html`<li>
            <span>${label}</span> <code>${tag}</code>
            <button type="button" class="insert" data-insert="${tag}" hidden>Insert</button>
          </li>`,
      )}
    </ul>
  </div>`;
}

/** The menu of personalisation fields. */
export function fieldMenu(data: ComposeData): SafeHtml {
  return html`<details class="fields" open>
    <summary>Personalisation fields</summary>
    <p class="hint">Copy a field into the subject, HTML or text; each email gets the subscriber’s own value.</p>
    ${menuGroup(
      'Subscriber',
      SUBSCRIBER_FIELDS.map(([name, label]) => [tagOf(name), label]),
    )}
    ${
      data.customFields.length
        ? menuGroup(
            'Custom fields',
            data.customFields.map((name) => [tagOf(name), name]),
          )
        : ''
    }
    ${menuGroup(
      'Every email',
      EMAIL_FIELDS.map((name) => [tagOf(name), EMAIL_FIELD_LABELS[name]]),
    )}
  </details>`;
}

/** A stored mailing the compose form edits. */
export interface EditedMailing {
  id: string;
  subject: string;
  from_email: string | null;
  from_name: string | null;
  html_part: string | null;
  text_part: string | null;
  content_blocks: BlockDocument | null;
}

/** The new-mailing form, or with `m` the form that edits a mailing not sent yet. */
export function composeForm(c: ConsoleContext, data: ComposeData, m?: EditedMailing): SafeHtml {
  const action = m ? `/console/campaigns/mailings/${seg(m.id)}/edit` : '/console/campaigns/mailings';
  return html`<div class="card">
    <h2>${m ? 'Edit mailing' : 'New mailing'}</h2>
    <form method="post" action="${action}" data-compose data-unsaved>
      ${csrfField(c.csrfToken)}
      <div class="field">
        <label for="m-subject">Subject</label
        ><input type="text" id="m-subject" name="subject" required maxlength="500" value="${m?.subject ?? ''}" />
      </div>
      <div class="field">
        <label for="m-from">From address</label
        ><input id="m-from" name="from_email" type="email" required value="${m?.from_email ?? ''}" />
      </div>
      <div class="field">
        <label for="m-from-name">From name</label
        ><input type="text" id="m-from-name" name="from_name" value="${m?.from_name ?? ''}" />
      </div>
      ${fieldMenu(data)} ${editorFields(m ? m.content_blocks : null, !m)}
      <div class="field mode-html">
        <label for="m-html">HTML</label>
        <p class="hint" id="m-html-hint">
          ${m ? 'The footer' : 'Starts from the default layout: write your message in the middle; the footer'} carries
          your postal address and the unsubscribe and preference links.
        </p>
        <textarea id="m-html" name="html_part" rows="14" aria-describedby="m-html-hint">${m ? (m.html_part ?? '') : DEFAULT_LAYOUT}</textarea>
      </div>
      ${
        data.postalAddress
          ? ''
          : html`<p class="flash flash-info">
              The footer has no postal address yet: set it under “Footer of your emails” on the campaigns page.
            </p>`
      }
      ${editorPreview(c)}
      <div class="field">
        <label for="m-text">Text (leave empty to generate it from the blocks or the HTML)</label
        ><textarea id="m-text" name="text_part" rows="5">${m?.content_blocks ? '' : (m?.text_part ?? '')}</textarea>
      </div>
      <button type="submit" class="button">${m ? 'Save changes' : 'Save mailing'}</button>
    </form>
    <script src="${assetUrl('compose.js')}" defer></script>
    ${unsavedChangesScript()}
  </div>`;
}

/** The card where the account's postal address is set. */
export function postalCard(c: ConsoleContext, postal: string | null): SafeHtml {
  return html`<div class="card">
    <h2>Footer of your emails</h2>
    <form method="post" action="/console/campaigns/postal-address">
      ${csrfField(c.csrfToken)}
      <div class="field">
        <label for="postal">Postal address</label>
        <p class="hint" id="postal-hint">Printed in the footer of every campaign email; many countries require it.</p>
        <textarea id="postal" name="postal_address" rows="3" maxlength="500" aria-describedby="postal-hint">${postal ?? ''}</textarea>
      </div>
      <button type="submit">Save address</button>
    </form>
  </div>`;
}

/** The preview form of a mailing page, and the preview when one was asked for. */
export async function previewCard(c: ConsoleContext, mailingId: string | number): Promise<SafeHtml> {
  const who = (c.query.preview ?? '').trim();
  let preview: MailingPreview | null = null;
  let problem = '';
  if (who) {
    try {
      preview = await previewMailing(c.ctx, c.account.customer_id, mailingId, who);
    } catch (err) {
      if ((err as { code?: string }).code !== 'marketing.subscriber_not_found') throw err;
      problem = `No subscriber has the email ${who}.`;
    }
  }
  const base = `/console/campaigns/mailings/${seg(mailingId)}`;
  return html`<div class="card">
    <h2>Preview as a subscriber</h2>
    <form method="get" action="${base}" class="filters">
      <div class="field">
        <label for="preview-who">Subscriber’s email</label>
        <input type="email" id="preview-who" name="preview" value="${who}" required />
      </div>
      <button type="submit">Preview</button>
    </form>
    ${problem ? html`<p class="error-text" role="alert">${problem}</p>` : ''}
    ${
      preview
        ? html`<p>Subject: <strong>${preview.subject}</strong></p>
            ${
              preview.html !== null
                ? html`<iframe
                    class="mail-frame"
                    title="The mailing as ${preview.email} receives it"
                    sandbox=""
                    referrerpolicy="no-referrer"
                    src="${base}/preview.html?subscriber=${encodeURIComponent(preview.email)}"
                  ></iframe>`
                : ''
            }
            ${preview.text !== null ? html`<details><summary>Text</summary><pre class="mono">${preview.text}</pre></details>` : ''}`
        : ''
    }
  </div>`;
}

/** Registers the postal address action and the preview frame. */
export function composeRoutes(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/campaigns/postal-address',
    permission: 'edit_content',
    body: Form({ postal_address: Text() }),
    back: () => '/console/campaigns',
    handle: async (c) => {
      // A blank address removes it.
      await changeSettings(
        ctx,
        c.account.customer_id,
        { postal_address: field(c, 'postal_address') || ' ' },
        c.by,
      );
      return { redirect: '/console/campaigns', flash: 'The postal address was saved.' };
    },
  });

  app.get<{ Params: { id: string }; Querystring: { subscriber?: string } }>(
    '/console/campaigns/mailings/:id/preview.html',
    { schema: { hide: true } },
    async (req, reply) => {
      const c = await guard(ctx, req, reply, 'read');
      if (!c) return reply;
      const p = await previewMailing(ctx, c.account.customer_id, req.params.id, req.query.subscriber ?? '');
      return sendMailFrame(reply, p.html ?? '');
    },
  );
}
