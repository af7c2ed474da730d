/** Block documents rendered through MJML: valid MJML, responsive inline-styled HTML, fields kept, a text part, checks. */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { mjmlOf, renderDocument } from './blocks.render.ts';
import { checkDocument } from './blocks.service.ts';
import { checkContent } from './content-check.ts';
import { EXAMPLE_DOCUMENT, type BlockDocument } from './blocks.schemas.ts';

const mjml = createRequire(import.meta.url)('mjml') as (
  s: string,
  o: object,
) => Promise<{ errors: { formattedMessage: string }[] }>;

/** A document with every kind of block. */
export const EVERY_KIND: BlockDocument = {
  version: 1,
  settings: { brand_color: '#0b6e4f', preheader: 'News from the clinic' },
  blocks: [
    { type: 'heading', text: 'Hello {{first_name}} & friends', level: 1 },
    {
      type: 'paragraph',
      html: '<p>We open <strong>early</strong> and <em>late</em>, see <a href="https://example.org/hours">hours</a>.</p><ul><li><p>Mondays</p></li></ul><script>alert(1)</script>',
    },
    { type: 'image', src: 'https://example.org/a.png', alt: 'The entrance', link: 'https://example.org' },
    { type: 'button', text: 'Book now', href: 'https://example.org/book' },
    { type: 'divider' },
    { type: 'spacer', height: 24 },
    {
      type: 'columns',
      columns: [
        [{ type: 'heading', text: 'Left', level: 3 }],
        [{ type: 'markdown', markdown: 'Some **Markdown** with [a link](https://example.org/md)' }],
      ],
    },
    {
      type: 'footer',
      social: [{ network: 'Instagram', href: 'https://instagram.com/clinic' }],
      text: 'Sent with care',
    },
  ],
};

describe('block documents', () => {
  it('render to MJML that passes MJML’s own strict validation', async () => {
    const out = await mjml(mjmlOf(EVERY_KIND), { validationLevel: 'soft' });
    expect(out.errors.map((e) => e.formattedMessage)).toEqual([]);
    expect((await mjml(mjmlOf(EXAMPLE_DOCUMENT), { validationLevel: 'soft' })).errors).toEqual([]);
  });

  it('render responsive HTML with inline styles and personalisation fields kept', async () => {
    const { html } = await renderDocument(EVERY_KIND);
    expect(html).toContain('Hello {{first_name}} &amp; friends');
    expect(html).toContain('href="{{unsubscribe_url}}"');
    expect(html).toContain('{{postal_address}}');
    expect(html).toMatch(/@media only screen and \(min-width:480px\)/);
    expect(html).toMatch(
      /<a href="https:\/\/example.org\/hours" style="color:#0b6e4f;text-decoration:underline">/,
    );
    expect(html).toContain('<strong>early</strong>');
    expect(html).toContain('alt="The entrance"');
    expect(html).not.toContain('<script>');
    expect(html).toContain('<strong>Markdown</strong>');
  });

  it('make a text part from the blocks', async () => {
    const { text } = await renderDocument(EVERY_KIND);
    expect(text).toContain('Hello {{first_name}} & friends');
    expect(text).toContain('Book now: https://example.org/book');
    expect(text).toContain('[The entrance] https://example.org');
    expect(text).toContain('Unsubscribe: {{unsubscribe_url}}');
    expect(text).not.toContain('alert');
  });

  it('refuse a document that does not match the schema, naming the path', () => {
    const bad = {
      version: 1,
      blocks: [
        { type: 'heading', text: 'x' },
        { type: 'button', text: 'Go', href: 'javascript:x' },
      ],
    };
    expect(() => checkDocument(bad, 'campaign_mailing.content_blocks')).toThrow(
      /campaign_mailing\.content_blocks\.blocks\.1/,
    );
    expect(() => checkDocument({ version: 2, blocks: [] }, 'd')).toThrow(/marketing|version|Expected/);
  });

  it('flag missing alt text, http links, an image-only email and no unsubscribe link', async () => {
    const { html } = await renderDocument({
      version: 1,
      blocks: [{ type: 'image', src: 'https://example.org/a.png', alt: '', link: 'http://example.org/x' }],
    });
    expect(
      checkContent(html)
        .map((w) => w.code)
        .sort(),
    ).toEqual(['image_only', 'insecure_link', 'missing_alt', 'no_unsubscribe']);
    expect(checkContent((await renderDocument(EVERY_KIND)).html)).toEqual([]);
  });
});
