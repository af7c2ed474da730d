/** The block document through the API: mailings and dynamic templates store, render and answer it; HTML clients are unchanged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { marketingClient } from '../../marketing/marketing.test-support.ts';
import { rowCount } from '../../marketing/mailings/mailings.test-support.ts';
import { multipart } from '../../test/multipart.ts';
import { EXAMPLE_DOCUMENT } from './blocks.schemas.ts';

let t: TestApp;
let a: TestAccount;
let call: ReturnType<typeof marketingClient>;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  call = marketingClient(t, a);
});
afterAll(() => t.close());

const create = (fields: Record<string, unknown>) =>
  call('POST', '/campaign_mailings', {
    campaign_mailing: { from_email: `news@${a.domain}`, ...fields },
  });

describe('campaign mailings with a block document', () => {
  it('store the document, answer it back, and render the HTML and text parts from it', async () => {
    const res = await create({ subject: 'Blocks round trip', content_blocks: EXAMPLE_DOCUMENT });
    expect(res.statusCode, res.body).toBe(200);
    const made = res.json().data.attributes;
    expect(made.content_blocks).toEqual(EXAMPLE_DOCUMENT);
    expect(made.template_type).toBe('blocks');
    expect(made.html_part).toContain('Hello {{first_name}}');
    expect(made.html_part).toContain('href="{{unsubscribe_url}}"');
    expect(made.text_part).toContain('Book a visit: https://example.org/book');
    const read = await call('GET', `/campaign_mailings/${res.json().data.id}`);
    expect(read.json().data.attributes).toEqual(made);
  });

  it('drop the document when HTML is sent alone, and keep HTML clients unchanged', async () => {
    const id = (await create({ subject: 'Blocks then HTML', content_blocks: EXAMPLE_DOCUMENT })).json().data
      .id;
    const res = await call('PATCH', `/campaign_mailings/${id}`, {
      campaign_mailing: { html_part: '<p>Hi</p>' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.attributes).toMatchObject({
      html_part: '<p>Hi</p>',
      content_blocks: null,
      template_type: 'html',
    });
    const plain = await create({ subject: 'Plain HTML', html_part: '<p>Hello</p>' });
    expect(plain.json().data.attributes).toMatchObject({ html_part: '<p>Hello</p>', content_blocks: null });
  });

  it('change the document in place, re-rendering the HTML', async () => {
    const id = (await create({ subject: 'Blocks changed', content_blocks: EXAMPLE_DOCUMENT })).json().data.id;
    const doc = { version: 1, blocks: [{ type: 'heading', text: 'Second draft' }] };
    const res = await call('PUT', `/campaign_mailings/${id}`, { campaign_mailing: { content_blocks: doc } });
    expect(res.json().data.attributes.content_blocks).toEqual(doc);
    expect(res.json().data.attributes.html_part).toContain('Second draft');
    expect(res.json().data.attributes.html_part).not.toContain('Book a visit');
  });

  it('refuse a wrong document or one sent with HTML, naming the field, and store nothing', async () => {
    const before = await rowCount(t, 'campaign_mailings');
    const bad = await create({
      subject: 'Bad blocks',
      content_blocks: { version: 1, blocks: [{ type: 'image', src: 'https://x.example/a.png' }] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('marketing.blocks_invalid');
    expect(bad.body).toContain('campaign_mailing.content_blocks.blocks.0');
    const both = await create({ subject: 'Both', html_part: '<p>x</p>', content_blocks: EXAMPLE_DOCUMENT });
    expect(both.statusCode).toBe(400);
    expect(both.body).toContain('not both');
    expect(await rowCount(t, 'campaign_mailings')).toBe(before);
  });
});

describe('dynamic templates with a block document', () => {
  const upload = (method: 'POST' | 'PATCH', url: string, parts: Parameters<typeof multipart>[0]) => {
    const m = multipart(parts);
    return t.app.inject({ method, url, headers: { ...a.auth, ...m.headers }, payload: m.payload });
  };

  it('store a document sent as JSON text in a form, render the body, and answer the document', async () => {
    const res = await upload('POST', '/v1/email/dynamic_templates', [
      { name: 'data[name]', value: 'blocks-welcome' },
      { name: 'data[content_blocks]', value: JSON.stringify(EXAMPLE_DOCUMENT) },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().content_blocks).toEqual(EXAMPLE_DOCUMENT);
    expect(res.json().body).toContain('Hello {{first_name}}');
    const read = await t.app.inject({
      method: 'GET',
      url: `/v1/email/dynamic_templates/${res.json().id}`,
      headers: a.auth,
    });
    expect(read.json().content_blocks).toEqual(EXAMPLE_DOCUMENT);
    const changed = await upload('PATCH', `/v1/email/dynamic_templates/${res.json().id}`, [
      { name: 'data[body]', value: '<p>Plain {{name}}</p>' },
    ]);
    expect(changed.json()).toMatchObject({ body: '<p>Plain {{name}}</p>', content_blocks: null });
  });

  it('accept the document as an object in a JSON body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/email/dynamic_templates',
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ data: { name: 'blocks-json', content_blocks: EXAMPLE_DOCUMENT } }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().content_blocks).toEqual(EXAMPLE_DOCUMENT);
  });
});
