/**
 * Templates at `/console/templates`: the account's Handlebars templates, creating and editing one with the block editor
 * (stored as `content_blocks`, rendered into the body) or, as the expert mode, in raw HTML, with a live preview from
 * sample values (assets/template-preview.js posts the body or the document to `/console/templates/preview`, which
 * answers the error with its line and column when there is one, then into the frame from `preview.html`, under the
 * frame's own policy). Editors, admins and owners change templates; every change is recorded in the audit trail.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { record } from '../audit/audit.service.ts';
import {
  allTemplates,
  changeTemplate,
  createTemplate,
  oneTemplate,
  type DynamicTemplate,
} from '../email/templates.service.ts';
import { previewTemplate } from '../email/template-preview.ts';
import { assetUrl, unsavedChangesScript } from './assets.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { csrfField } from './layout.ts';
import { consoleAction, consolePage, formOf, formRoute, guard, type ConsoleContext } from './page.ts';
import { field, when } from './format.ts';
import { Form, Text } from './action.schemas.ts';
import { AppError } from '../errors/app-error.ts';
import { sendMailFrame } from './mail-frame.ts';
import { renderChecked } from '../mail/blocks/blocks.service.ts';
import type { BlockDocument } from '../mail/blocks/blocks.schemas.ts';
import { editorFields, parsedDocument } from './campaigns/block-editor.ts';

const SAMPLE = '{\n  "first_name": "Ana",\n  "appointment": "Monday 9:00"\n}';

/** The document a new template starts from (no footer: transactional mail has no unsubscribe link). */
const STARTER: BlockDocument = {
  version: 1,
  blocks: [
    { type: 'heading', text: 'Hello {{first_name}}', level: 1 },
    { type: 'paragraph', html: '<p>Your appointment is on {{appointment}}.</p>' },
  ],
};

/** The body field: the HTML mode (expert) when the block editor is offered, the only field for a reader. */
function bodyField(t: DynamicTemplate | undefined, canEdit: boolean): SafeHtml {
  return html`<div class="field ${canEdit ? 'mode-html' : ''}">
    <label for="tpl-body">${canEdit ? 'HTML (Handlebars)' : 'Template (Handlebars)'}</label>
    <textarea id="tpl-body" name="body" rows="14" class="mono" ${canEdit ? '' : html`readonly`}>
${t?.body ?? '<p>Hello {{first_name}},</p>\n<p>your appointment is on {{appointment}}.</p>'}</textarea>
  </div>`;
}

function editor(c: ConsoleContext, t?: DynamicTemplate): SafeHtml {
  const canEdit = c.can('edit_content') && !c.viewingOther;
  return html`<script src="${assetUrl('template-preview.js')}" defer></script>
    ${canEdit ? unsavedChangesScript() : ''}
    <form class="card" method="post" action="${t ? `/console/templates/${t.id}` : '/console/templates'}" data-template-editor data-unsaved>
      ${csrfField(c.csrfToken)}
      <div class="field">
        <label for="tpl-name">Name</label>
        <input id="tpl-name" name="name" required maxlength="255" value="${t?.name ?? ''}" ${canEdit ? '' : html`readonly`} />
      </div>
      ${canEdit ? editorFields(t ? t.content_blocks : null, !t, { markdown: false, starter: STARTER, noFooter: true }) : ''}
      ${bodyField(t, canEdit)}
      <div class="field">
        <label for="tpl-values">Sample values (JSON), for the preview only</label>
        <textarea id="tpl-values" name="sample" rows="5" class="mono" data-unsaved-ignore>${SAMPLE}</textarea>
      </div>
      <p id="tpl-problem" class="error-text" role="alert"></p>
      ${canEdit ? html`<button type="submit" class="button">Save template</button>` : ''}
    </form>
    <div class="card">
      <h2>Preview</h2>
      <iframe id="tpl-preview" name="tpl-preview" class="mail-frame" title="Preview of the template" sandbox="" referrerpolicy="no-referrer"></iframe>
    </div>`;
}

const TemplateForm = Form({
  name: Text(),
  body: Text(),
  editor_mode: Text(16),
  content_blocks: Text(1_000_000),
});

/** The posted content: the block document in the block mode, else the HTML body. */
function postedTemplate(c: ConsoleContext): { name: string; body?: string; content_blocks?: unknown } {
  if (field(c, 'editor_mode') === 'blocks')
    return { name: field(c, 'name'), content_blocks: parsedDocument(field(c, 'content_blocks')) };
  const body = c.form.body;
  return { name: field(c, 'name'), body: (Array.isArray(body) ? body[0] : body) ?? '' };
}

/** The HTML the preview renders: the posted body, or the block document rendered as a save would. */
async function previewBody(form: {
  body?: string;
  editor_mode?: string;
  content_blocks?: string;
}): Promise<string> {
  if (form.editor_mode !== 'blocks') return form.body ?? '';
  return (await renderChecked(parsedDocument(form.content_blocks ?? ''), 'content_blocks')).html;
}

async function audit(c: ConsoleContext, action: string, t: DynamicTemplate): Promise<void> {
  await record(c.ctx.database.db, {
    accountId: c.account.customer_id,
    actor: c.actor,
    action,
    target: `template:${t.id}`,
    ip: c.ip,
    detail: { name: t.name },
  });
}

/** Registers the templates pages. */
export function templatePages(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/templates',
    permission: 'read',
    title: 'Templates',
    render: async (c) => {
      const list = await allTemplates(c.ctx, c.account.customer_id);
      return html`<div class="card">
          ${
            list.length === 0
              ? html`<p>No templates yet.</p>`
              : html`<ul>
                  ${list.map((t) => html`<li><a href="/console/templates/${t.id}">${t.name}</a> <span class="muted">changed ${when(t.updated_at)}</span></li>`)}
                </ul>`
          }
        </div>
        ${c.can('edit_content') ? html`<p><a class="button" href="/console/templates/new">New template</a></p>` : ''}`;
    },
  });

  consolePage(app, ctx, {
    path: '/console/templates/new',
    permission: 'edit_content',
    title: 'New template',
    render: async (c) => editor(c),
  });

  consolePage(app, ctx, {
    path: '/console/templates/:id',
    permission: 'read',
    title: 'Template',
    render: async (c) => editor(c, await oneTemplate(c.ctx, c.account.customer_id, c.params.id!)),
  });

  consoleAction(app, ctx, {
    path: '/console/templates',
    permission: 'edit_content',
    body: TemplateForm,
    back: () => '/console/templates/new',
    handle: async (c) => {
      const t = await createTemplate(c.ctx, c.account.customer_id, postedTemplate(c));
      await audit(c, 'template.create', t);
      return { redirect: `/console/templates/${t.id}`, flash: 'The template is saved.' };
    },
  });

  consoleAction(app, ctx, {
    path: '/console/templates/:id',
    permission: 'edit_content',
    body: TemplateForm,
    back: (c) => `/console/templates/${encodeURIComponent(c.params.id ?? '')}`,
    handle: async (c) => {
      const t = await changeTemplate(c.ctx, c.account.customer_id, c.params.id!, postedTemplate(c));
      await audit(c, 'template.change', t);
      return { redirect: `/console/templates/${t.id}`, flash: 'The template is saved.' };
    },
  });

  const Preview = Form({
    body: Text(),
    sample: Text(),
    editor_mode: Text(16),
    content_blocks: Text(1_000_000),
  });
  /** The preview of the posted form: the HTML, or the problem with its line and column. */
  async function preview(c: ConsoleContext): Promise<ReturnType<typeof previewTemplate>> {
    const form = formOf(c, Preview);
    try {
      return previewTemplate(await previewBody(form), form.sample ?? '');
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return { problem: { message: err.message, line: null, column: null } };
    }
  }
  app.post('/console/templates/preview', formRoute(Preview), async (req, reply) => {
    const c = await guard(ctx, req, reply, 'read');
    if (!c) return reply;
    return reply.type('application/json').send(await preview(c));
  });
  // The frame's document, under its own policy: the console's would drop the email's inline styles.
  app.post('/console/templates/preview.html', formRoute(Preview), async (req, reply) => {
    const c = await guard(ctx, req, reply, 'read');
    if (!c) return reply;
    const out = await preview(c);
    return sendMailFrame(reply, 'html' in out ? out.html : '');
  });
}
