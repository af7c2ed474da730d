/** The block editor over HTTP: saving in blocks and Markdown modes, the preview frame's own policy, and the checks. */
import { describe, expect, it } from 'vitest';
import { consoleTestBed } from '../console.test-support.ts';
import { createList } from '../../marketing/lists/lists.service.ts';
import { createSubscriber } from '../../marketing/subscribers/subscribers.service.ts';
import { mailingOf } from '../../marketing/mailings/mailings.service.ts';
import { EXAMPLE_DOCUMENT } from '../../mail/blocks/blocks.schemas.ts';
import { PREVIEW_FRAME_CSP } from '../mail-frame.ts';

const {
  t,
  a,
  clients: [editor],
} = consoleTestBed(['editor']);

async function save(subject: string, fields: Record<string, string>) {
  const res = await editor.post('/console/campaigns/mailings', {
    _csrf: editor.csrf,
    subject,
    from_email: `news@${a.domain}`,
    text_part: '',
    ...fields,
  });
  expect(res.statusCode, res.body).toBe(303);
  return mailingOf(t.ctx, a.account.customer_id, (res.headers.location as string).split('/').pop()!);
}

describe('the block editor', () => {
  it('saves a mailing written in blocks, with its HTML and text made from them', async () => {
    const m = await save('Blocks from the console', {
      editor_mode: 'blocks',
      content_blocks: JSON.stringify(EXAMPLE_DOCUMENT),
      html_part: '<p>ignored in blocks mode</p>',
    });
    expect(m.attributes.content_blocks).toEqual(EXAMPLE_DOCUMENT);
    expect(m.attributes.html_part).toContain('Book a visit');
    expect(m.attributes.text_part).toContain('Book a visit: https://example.org/book');
    const page = (await editor.get(`/console/campaigns/mailings/${m.id}`)).body;
    expect(page).toMatch(/id="mode-blocks" checked/);
  });

  it('saves a Markdown mailing and opens it in Markdown mode again', async () => {
    const m = await save('Markdown from the console', {
      editor_mode: 'markdown',
      markdown: 'Hello {{first_name}}, we are **open** on [Saturdays](https://example.org/sat).',
    });
    expect(m.attributes.html_part).toContain('<strong>open</strong>');
    expect(m.attributes.html_part).toContain('href="{{unsubscribe_url}}"');
    const page = (await editor.get(`/console/campaigns/mailings/${m.id}`)).body;
    expect(page).toMatch(/id="mode-markdown" checked/);
    expect(page).toContain('we are **open** on');
  });

  it('previews a document as a subscriber in a frame under its own policy', async () => {
    const list = await createList(t.ctx, a.account.customer_id, 'Preview list');
    await createSubscriber(
      t.ctx,
      a.account.customer_id,
      { email: 'ana@example.org', first_name: 'Ana' },
      list.id,
    );
    const res = await editor.post('/console/campaigns/blocks/preview.html', {
      _csrf: editor.csrf,
      content_blocks: JSON.stringify(EXAMPLE_DOCUMENT),
      subscriber: 'ana@example.org',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(PREVIEW_FRAME_CSP);
    expect(res.body).toContain('Hello Ana');
    expect(res.body).toContain('style=');
  });

  it('answers the checks of a document, and a problem for one that does not match the schema', async () => {
    const check = (doc: unknown) =>
      editor.post('/console/campaigns/blocks/check', {
        _csrf: editor.csrf,
        content_blocks: JSON.stringify(doc),
      });
    const warned = await check({
      version: 1,
      blocks: [{ type: 'image', src: 'https://example.org/a.png', alt: '', link: 'http://example.org' }],
    });
    expect(warned.json().warnings).toHaveLength(4);
    expect((await check(EXAMPLE_DOCUMENT)).json()).toEqual({ warnings: [] });
    expect((await check({ version: 1, blocks: [{ type: 'nope' }] })).json().problem).toContain(
      'content_blocks',
    );
  });
});
