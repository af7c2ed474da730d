/**
 * Renders a block document into email HTML and a text part. Each block becomes MJML, which MJML turns into
 * responsive, inline-styled HTML; personalisation fields (`{{first_name}}`, `{{unsubscribe_url}}`, …) pass through
 * untouched, to be filled per copy by the mailing's ordinary templating. Rendering runs when a document is saved, never
 * per copy: the HTML is stored with the mailing.
 */
import type SanitizeHtml from 'sanitize-html';
import type { convert as Convert } from 'html-to-text';
import type { Marked } from 'marked';
import { escapeHtml } from '../../markup/escape.ts';
import { onFirstUse } from '../../on-first-use.ts';
import { AppError } from '../../errors/app-error.ts';
import type { Block, BlockDocument, InnerBlock } from './blocks.schemas.ts';

type Mjml = (
  mjml: string,
  opts: { validationLevel: 'strict' | 'soft' | 'skip'; keepComments?: boolean },
) => Promise<{ html: string; errors: { formattedMessage: string }[] }>;

const mjml = onFirstUse<Mjml>('mjml');
const sanitizer = onFirstUse<typeof SanitizeHtml>('sanitize-html');
const htmlToText = onFirstUse<{ convert: typeof Convert }>('html-to-text');
const markedModule = onFirstUse<{ Marked: typeof Marked }>('marked');

/** What a document renders to. */
export interface RenderedDocument {
  html: string;
  text: string;
  /** The MJML source, for checks and tests. */
  mjml: string;
}

const FONT = 'Arial, Helvetica, sans-serif';
const TEXT_COLOUR = '#1d2330';
const DEFAULT_BRAND = '#0b5cad';

interface Look {
  brand: string;
}

/** Renders a document (already checked against its schema) into email HTML and text. */
export async function renderDocument(doc: BlockDocument): Promise<RenderedDocument> {
  const source = mjmlOf(doc);
  let out: Awaited<ReturnType<Mjml>>;
  try {
    out = await mjml()(source, { validationLevel: 'strict', keepComments: false });
  } catch (err) {
    throw new AppError(
      'marketing.blocks_invalid',
      `the block document does not render: ${(err as Error).message}`,
    );
  }
  return { html: out.html, text: textOf(doc), mjml: source };
}

/** The MJML source of a document. */
export function mjmlOf(doc: BlockDocument): string {
  const look: Look = { brand: doc.settings?.brand_color ?? DEFAULT_BRAND };
  const background = doc.settings?.background ?? '#f4f5f7';
  const preheader = doc.settings?.preheader
    ? `<mj-preview>${escapeHtml(doc.settings.preheader)}</mj-preview>`
    : '';
  const sections = doc.blocks.map((b) => sectionOf(b, look)).join('\n');
  return `<mjml>
<mj-head>${preheader}
<mj-attributes>
<mj-all font-family="${FONT}" />
<mj-text font-size="16px" line-height="1.5" color="${TEXT_COLOUR}" />
<mj-section background-color="#ffffff" padding="0 12px" />
</mj-attributes>
</mj-head>
<mj-body background-color="${background}" width="600px">
<mj-wrapper padding="24px 0">
${sections}
</mj-wrapper>
</mj-body>
</mjml>`;
}

function sectionOf(block: Block, look: Look): string {
  if (block.type === 'columns')
    return `<mj-section>${block.columns
      .map((col) => `<mj-column>${col.map((b) => contentOf(b, look)).join('')}</mj-column>`)
      .join('')}</mj-section>`;
  if (block.type === 'footer') return footerOf(block, look);
  return `<mj-section><mj-column>${contentOf(block, look)}</mj-column></mj-section>`;
}

const attr = (value: string) => escapeHtml(value);

/** The MJML of one block inside a column. */
function contentOf(block: InnerBlock, look: Look): string {
  switch (block.type) {
    case 'heading': {
      const size = { 1: 28, 2: 22, 3: 18 }[block.level ?? 1];
      const tag = `h${block.level ?? 1}`;
      return `<mj-text align="${block.align ?? 'left'}" font-size="${size}px" line-height="1.25"><${tag} style="margin:0;font-size:${size}px;font-weight:bold">${escapeHtml(block.text)}</${tag}></mj-text>`;
    }
    case 'paragraph':
      return `<mj-text align="${block.align ?? 'left'}">${richText(block.html, look)}</mj-text>`;
    case 'markdown':
      return `<mj-text>${richText(markdownToHtml(block.markdown), look)}</mj-text>`;
    case 'image': {
      const link = block.link ? ` href="${attr(block.link)}"` : '';
      const width = block.width ? ` width="${block.width}px"` : '';
      return `<mj-image src="${attr(block.src)}" alt="${attr(block.alt)}"${link}${width} />`;
    }
    case 'button':
      return `<mj-button href="${attr(block.href)}" background-color="${block.color ?? look.brand}" color="#ffffff" font-size="16px" font-weight="bold" border-radius="6px" inner-padding="12px 24px" align="${block.align ?? 'center'}">${escapeHtml(block.text)}</mj-button>`;
    case 'divider':
      return '<mj-divider border-width="1px" border-color="#d5d9e0" />';
    case 'spacer':
      return `<mj-spacer height="${block.height}px" />`;
  }
}

function footerOf(block: Extract<Block, { type: 'footer' }>, look: Look): string {
  const social = (block.social ?? [])
    .map(
      (s) =>
        `<a href="${attr(s.href)}" style="color:${look.brand};text-decoration:underline">${escapeHtml(s.network)}</a>`,
    )
    .join(' · ');
  const line = (s: string) => `<p style="margin:0 0 8px">${s}</p>`;
  return `<mj-section background-color="transparent"><mj-column><mj-text font-size="12px" color="#5a6270" align="center">${[
    social && line(social),
    block.text && line(escapeHtml(block.text)),
    line('{{postal_address}}'),
    line(
      `<a href="{{unsubscribe_url}}" style="color:#5a6270">Unsubscribe</a> · <a href="{{preferences_url}}" style="color:#5a6270">Manage your subscriptions</a>`,
    ),
  ]
    .filter(Boolean)
    .join('')}</mj-text></mj-column></mj-section>`;
}

/** Rich text reduced to the tags a paragraph allows, with the styles email clients need written inline. */
export function richText(markup: string, look: Look = { brand: DEFAULT_BRAND }): string {
  const sanitize = sanitizer();
  return sanitize(markup, {
    allowedTags: [
      'p',
      'br',
      'strong',
      'b',
      'em',
      'i',
      'a',
      'ul',
      'ol',
      'li',
      'h2',
      'h3',
      'code',
      'blockquote',
    ],
    allowedAttributes: { a: ['href', 'style'], p: ['style'], ul: ['style'], ol: ['style'] },
    // `{{unsubscribe_url}}` and other fields have no scheme: they are kept, as relative links are.
    allowedSchemes: ['http', 'https', 'mailto'],
    transformTags: {
      a: (tag, attribs) => ({
        tagName: tag,
        attribs: { href: attribs.href ?? '', style: `color:${look.brand};text-decoration:underline` },
      }),
      p: () => ({ tagName: 'p', attribs: { style: 'margin:0 0 12px' } }),
      ul: () => ({ tagName: 'ul', attribs: { style: 'margin:0 0 12px;padding-left:24px' } }),
      ol: () => ({ tagName: 'ol', attribs: { style: 'margin:0 0 12px;padding-left:24px' } }),
    },
  });
}

let markdown: Marked | undefined;

/** Markdown as HTML (GitHub flavour, no raw HTML passes the sanitiser that follows). */
export function markdownToHtml(source: string): string {
  markdown ??= new (markedModule().Marked)({ gfm: true, breaks: false });
  return markdown.parse(source, { async: false });
}

/** The text part, made from the blocks (not from the table layout of the HTML). */
export function textOf(doc: BlockDocument): string {
  return (
    doc.blocks
      .map(textOfBlock)
      .filter((s) => s !== '')
      .join('\n\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim() + '\n'
  );
}

function textOfBlock(block: Block): string {
  switch (block.type) {
    case 'heading':
      return block.text;
    case 'paragraph':
      return fragmentText(richText(block.html));
    case 'markdown':
      return fragmentText(richText(markdownToHtml(block.markdown)));
    case 'image':
      return block.link ? `[${block.alt}] ${block.link}` : block.alt ? `[${block.alt}]` : '';
    case 'button':
      return `${block.text}: ${block.href}`;
    case 'divider':
      return '----';
    case 'spacer':
      return '';
    case 'columns':
      return block.columns.flat().map(textOfBlock).filter(Boolean).join('\n\n');
    case 'footer':
      return [
        '--',
        ...(block.social ?? []).map((s) => `${s.network}: ${s.href}`),
        ...(block.text ? [block.text] : []),
        '{{postal_address}}',
        'Unsubscribe: {{unsubscribe_url}}',
        'Manage your subscriptions: {{preferences_url}}',
      ].join('\n');
  }
}

function fragmentText(markup: string): string {
  return htmlToText()
    .convert(markup, {
      wordwrap: 78,
      selectors: [{ selector: 'a', options: { hideLinkHrefIfSameAsText: true } }],
    })
    .trim();
}
