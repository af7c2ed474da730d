/**
 * The prose documentation: the Markdown files of `docs/` under `/docs/guide`, as HTML pages for a browser (headings
 * carry GitHub-style ids, so the README's anchors work) and as Markdown for anything else, with an index page.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { Marked } from 'marked';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../http/typed.ts';
import { packageRoot } from '../config/package-root.ts';
import { AppError } from '../errors/app-error.ts';
import { ErrorResponse } from '../mail/error-body.ts';
import { html, raw } from '../http/html.ts';
import { PAGE_HEADERS, publicDocument } from '../http/page.ts';
import { onFirstUse } from '../on-first-use.ts';
import { PROSE_DOCS } from './openapi-document.ts';

/** Where the docs page's links point. */
export const GUIDE_BASE = '/docs/guide';

const FILES = new Set(PROSE_DOCS.map(([file]) => file));
const markedModule = onFirstUse<{ Marked: typeof Marked }>('marked');
let renderer: Marked | undefined;

/** Docs pages are wider than a form, and their tables scroll on a phone. */
const GUIDE_CSS =
  ':root{--width:60rem}table{display:block;overflow-x:auto;border-collapse:collapse;font-size:.9rem;margin:0 0 1rem}' +
  'th,td{border:1px solid #dde1e7;padding:.3rem .5rem;text-align:left;vertical-align:top}' +
  'code{font-size:.9em;overflow-wrap:anywhere}pre{background:#f4f5f7;padding:.75rem}' +
  'pre code{white-space:pre-wrap}h1{font-size:1.6rem}h2{font-size:1.3rem;margin-top:2rem}h3{font-size:1.1rem}';

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as dashes. */
export function headingId(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

function markdownToHtml(text: string): string {
  renderer ??= new (markedModule().Marked)({ gfm: true }).use({
    renderer: {
      heading({ tokens, depth, text: plain }) {
        return `<h${depth} id="${headingId(plain)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
    },
  });
  // The files are the product's own documentation, shipped with it: trusted, so not sanitised. A table that scrolls
  // sideways on a phone takes the keyboard focus, so it can be scrolled without a pointer.
  return renderer.parse(text, { async: false }).replaceAll('<table>', '<table tabindex="0">');
}

const wantsHtml = (req: FastifyRequest) => /text\/html/.test(req.headers.accept ?? '');

/** Registers `GET /docs/guide` and `GET /docs/guide/:file`. */
export function guideRoutes(app: TypedApp): void {
  app.get(
    GUIDE_BASE,
    {
      // A page for people, linked from the API docs page; not an operation of the API.
      schema: { hide: true },
    },
    async (_req, reply) => {
      const body = html`<h1>Sealpost guides</h1>
        <ul>
          ${PROSE_DOCS.map(([file, what]) => html`<li><a href="${GUIDE_BASE}/${file}">${what}</a></li>`)}
        </ul>
        <p><a href="/docs/">The API reference</a></p>`;
      return reply
        .headers(PAGE_HEADERS)
        .type('text/html; charset=utf-8')
        .send(publicDocument({ title: 'Sealpost guides', body, css: GUIDE_CSS }));
    },
  );
  app.get(
    `${GUIDE_BASE}/:file`,
    {
      schema: {
        tags: ['operations'],
        summary: 'A page of the prose documentation: HTML for a browser, Markdown otherwise',
        params: Type.Object({ file: Type.String({ description: 'The page, for example `email.md`' }) }),
        produces: ['text/html', 'text/markdown'],
        response: { 200: Type.String({ description: 'The page, in HTML or Markdown' }), 404: ErrorResponse },
      },
    },
    async (req, reply) => {
      if (!FILES.has(req.params.file))
        throw new AppError('not_found', `no documentation page ${req.params.file}`);
      const text = await readFile(path.join(packageRoot(), 'docs', req.params.file), 'utf8').catch(() => {
        throw new AppError('not_found', `the documentation page ${req.params.file} is not installed`);
      });
      if (!wantsHtml(req)) return reply.type('text/markdown; charset=utf-8').send(text);
      const title = /^# (.+)$/m.exec(text)?.[1] ?? req.params.file;
      const body = html`<p><a href="${GUIDE_BASE}">← All guides</a></p>
        ${raw(markdownToHtml(text))}`;
      return reply
        .headers(PAGE_HEADERS)
        .type('text/html; charset=utf-8')
        .send(publicDocument({ title: `${title} · Sealpost`, body, css: GUIDE_CSS }));
    },
  );
}
