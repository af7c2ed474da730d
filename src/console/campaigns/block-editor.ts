/**
 * The block editor of the compose form: a choice of how to write (blocks, Markdown, or HTML as the expert mode), the
 * stored document for assets/block-editor (which mounts the editing surface on it), and the editor's preview: the
 * document rendered through MJML and personalised for a chosen subscriber exactly as a test email to them is, shown in
 * a sandboxed frame under its own policy, with the content checks beside it.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { AppError } from '../../errors/app-error.ts';
import { assetUrl } from '../assets.ts';
import { formOf, formRoute, guard, type ConsoleContext } from '../page.ts';
import { Form, Text } from '../action.schemas.ts';
import { sendMailFrame } from '../mail-frame.ts';
import { field } from '../audiences/audit.ts';
import { renderChecked } from '../../mail/blocks/blocks.service.ts';
import { checkContent } from '../../mail/blocks/content-check.ts';
import type { BlockDocument } from '../../mail/blocks/blocks.schemas.ts';
import { testCopyHtml, personalisationFor } from '../../marketing/mailings/test-email.ts';

/** How a mailing is written. */
export type EditorMode = 'blocks' | 'markdown' | 'html';

/** The document a new mailing starts from. */
export const STARTER_DOCUMENT: BlockDocument = {
  version: 1,
  blocks: [
    { type: 'heading', text: 'Hello {{first_name}}', level: 1 },
    { type: 'paragraph', html: '<p>Write your message here.</p>' },
    { type: 'footer' },
  ],
};

/** A Markdown mailing is stored as a document of one Markdown block and the footer. */
export const markdownDocument = (markdown: string): BlockDocument => ({
  version: 1,
  blocks: [{ type: 'markdown', markdown }, { type: 'footer' }],
});

/** The mode a stored mailing opens in, and the Markdown when it is a Markdown mailing. */
export function modeOf(doc: BlockDocument | null, isNew: boolean): { mode: EditorMode; markdown: string } {
  if (!doc) return { mode: isNew ? 'blocks' : 'html', markdown: '' };
  const [first, second, ...rest] = doc.blocks;
  if (first?.type === 'markdown' && second?.type === 'footer' && rest.length === 0)
    return { mode: 'markdown', markdown: first.markdown };
  return { mode: 'blocks', markdown: '' };
}

/** What differs between the editors that use the block editor: the compose form offers Markdown and the footer. */
export interface EditorOptions {
  /** Offer a Markdown mode (mailings). */
  markdown: boolean;
  /** The document a new one starts from. */
  starter: BlockDocument;
  /** Leave the footer block out of the menu (templates: transactional mail has no unsubscribe link). */
  noFooter?: boolean;
}

const MAILING_EDITOR: EditorOptions = { markdown: true, starter: STARTER_DOCUMENT };

/** The mode switch and the block and Markdown fields of the compose form (the HTML field stays the compose form's). */
export function editorFields(
  doc: BlockDocument | null,
  isNew: boolean,
  opts: EditorOptions = MAILING_EDITOR,
): SafeHtml {
  const plain: EditorMode = doc || isNew ? 'blocks' : 'html';
  const { mode, markdown } = opts.markdown ? modeOf(doc, isNew) : { mode: plain, markdown: '' };
  const radio = (value: EditorMode, label: string) =>
    html`<label class="choice"
      ><input type="radio" name="editor_mode" value="${value}" id="mode-${value}" ${mode === value ? 'checked' : ''} />
      ${label}</label
    >`;
  return html`<fieldset class="editor-modes">
      <legend>Write with</legend>
      ${radio('blocks', 'Blocks')} ${opts.markdown ? radio('markdown', 'Markdown') : ''} ${radio('html', 'HTML (expert)')}
    </fieldset>
    <div class="mode-blocks">
      <div id="block-editor" data-block-editor ${opts.noFooter ? html`data-no-footer` : ''}></div>
      <noscript><p class="hint">The block editor needs JavaScript: write in ${opts.markdown ? 'Markdown or ' : ''}HTML instead.</p></noscript>
      <textarea name="content_blocks" id="m-blocks" hidden aria-label="Block document (JSON)">${JSON.stringify(
        mode === 'blocks' && doc ? doc : opts.starter,
      )}</textarea>
    </div>
    ${
      opts.markdown
        ? html`<div class="field mode-markdown">
            <label for="m-markdown">Markdown</label>
            <p class="hint" id="m-markdown-hint">For a plain newsletter: **bold**, *italic*, [links](https://…), lists. The footer is added.</p>
            <textarea id="m-markdown" name="markdown" rows="12" aria-describedby="m-markdown-hint">${markdown}</textarea>
          </div>`
        : ''
    }
    <script src="${assetUrl('block-editor.js')}" defer></script>`;
}

/** The editor's preview area: subscriber, widths, the sandboxed frame and the checks. */
export function editorPreview(c: ConsoleContext): SafeHtml {
  return html`<section class="block-preview mode-blocks" aria-labelledby="bp-title">
    <h3 id="bp-title">Preview</h3>
    <div class="field">
      <label for="bp-who">Preview as subscriber (email)</label>
      <input type="email" id="bp-who" data-preview-who />
    </div>
    <div class="width-switch" role="group" aria-label="Preview width">
      <button type="button" data-width="desktop" aria-pressed="true">Desktop</button>
      <button type="button" data-width="phone" aria-pressed="false">Phone</button>
      <button type="button" data-preview-refresh>Refresh preview</button>
    </div>
    <ul class="content-checks" data-checks aria-live="polite"></ul>
    <iframe name="block-preview" class="mail-frame preview-desktop" title="Preview of the email" sandbox="" referrerpolicy="no-referrer"></iframe>
    <input type="hidden" data-preview-csrf value="${c.csrfToken}" />
  </section>`;
}

/** The fields a compose form posts for its content, as the mailing service takes them. */
export function postedContent(c: ConsoleContext): { content_blocks?: unknown; html_part?: string } {
  const mode = field(c, 'editor_mode') || 'html';
  if (mode === 'markdown') return { content_blocks: markdownDocument(field(c, 'markdown')) };
  if (mode === 'blocks') return { content_blocks: parsedDocument(field(c, 'content_blocks')) };
  return { html_part: field(c, 'html_part') };
}

/** The posted block document, parsed; `marketing.blocks_invalid` when it is not JSON. */
export function parsedDocument(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('marketing.blocks_invalid', 'the block document is not valid JSON', {
      details: [{ field: 'content_blocks', message: 'is not valid JSON' }],
    });
  }
}

const PreviewForm = Form({ content_blocks: Text(1_000_000), subscriber: Text(320) });

/** What the editor's preview shows for a document and a subscriber: the HTML of their test email, and the checks. */
async function previewOf(c: ConsoleContext): Promise<{ html: string; warnings: string[] }> {
  const form = formOf(c, PreviewForm);
  const rendered = await renderChecked(parsedDocument(form.content_blocks ?? ''), 'content_blocks');
  const values = await personalisationFor(c.ctx, c.account.customer_id, (form.subscriber ?? '').trim());
  return {
    html: testCopyHtml(rendered.html, values),
    warnings: checkContent(rendered.html).map((w) => w.message),
  };
}

/** Registers the preview frame (HTML, its own policy) and the checks (JSON) of the block editor. */
export function blockEditorRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/console/campaigns/blocks/preview.html', formRoute(PreviewForm), async (req, reply) => {
    const c = await guard(ctx, req, reply, 'read');
    if (!c) return reply;
    const out = await previewOf(c);
    return sendMailFrame(reply, out.html);
  });
  app.post('/console/campaigns/blocks/check', formRoute(PreviewForm), async (req, reply) => {
    const c = await guard(ctx, req, reply, 'read');
    if (!c) return reply;
    try {
      return reply.type('application/json').send({ warnings: (await previewOf(c)).warnings });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'marketing.blocks_invalid') throw err;
      return reply.type('application/json').send({ warnings: [], problem: err.message });
    }
  });
}
