import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { emailTestBed, message, postJson, storedMessage } from './email.test-support.ts';
import { multipart } from '../test/multipart.ts';

const file = (value: string, type = 'text/x-handlebars-template', filename = 'template.hbs') => ({
  name: 'data[body]',
  value,
  filename,
  type,
});

describe('dynamic templates', () => {
  const { t, acme, other } = emailTestBed('tplacme');

  const upload = (
    method: 'POST' | 'PATCH',
    url: string,
    parts: Parameters<typeof multipart>[0],
    who = acme,
  ) => {
    const m = multipart(parts);
    return t.app.inject({ method, url, headers: { ...who.auth, ...m.headers }, payload: m.payload });
  };
  const create = (name: string, body: string, type?: string, filename?: string, who = acme) =>
    upload(
      'POST',
      '/v1/email/dynamic_templates',
      [{ name: 'data[name]', value: name }, file(body, type, filename)],
      who,
    );
  const get = (url: string, who = acme) => t.app.inject({ method: 'GET', url, headers: who.auth });

  it.each([
    ['text/x-handlebars-template', 'welcome.hbs'],
    ['application/octet-stream', 'welcome.hbs'],
    ['text/plain', 'welcome.txt'],
  ])('creates a template from a multipart upload whose body part is %s', async (type, filename) => {
    const name = `welcome-${type}`;
    const res = await create(name, '<p>Hello {{name}}</p>', type, filename);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name,
      body: '<p>Hello {{name}}</p>',
      content_blocks: null,
      api_customer_id: acme.account.customer_id,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updated_at: expect.stringMatching(/Z$/),
      message: `Template ${name} created!`,
      params: { name, body: '<p>Hello {{name}}</p>' },
    });
  });

  it('lists the templates of the account under every prefix', async () => {
    await create('listed', 'x');
    for (const prefix of ['/v1/email', '/v1/tplacme', '/v1']) {
      const res = await get(`${prefix}/dynamic_templates`);
      expect(res.statusCode).toBe(200);
      const list = res.json().templates as { name: string }[];
      expect(list.map((x) => x.name)).toContain('listed');
      expect(Object.keys(list[0]!).sort()).toEqual([
        'api_customer_id',
        'body',
        'content_blocks',
        'created_at',
        'id',
        'name',
        'updated_at',
      ]);
    }
    expect((await get('/v1/email/dynamic_templates', other)).json()).toEqual({ templates: [] });
  });

  it('reads one template', async () => {
    const created = (await create('one', 'body of one')).json();
    const res = await get(`/v1/email/dynamic_templates/${created.id}`);
    const { message: _message, params: _params, ...template } = created;
    expect(res.json()).toEqual(template);
  });

  it('renames a template with data[name] alone, keeping the body', async () => {
    const created = (await create('old-name', 'kept body')).json();
    const res = await upload('PATCH', `/v1/email/dynamic_templates/${created.id}`, [
      { name: 'data[name]', value: 'new-name' },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: created.id,
      name: 'new-name',
      body: 'kept body',
      created_at: created.created_at,
    });
    expect(res.json()).toMatchObject({ message: 'Template new-name updated!', params: { name: 'new-name' } });
  });

  it('replaces the body with data[body] alone, keeping the name', async () => {
    const created = (await create('body-change', 'old body')).json();
    const res = await upload('PATCH', `/v1/email/dynamic_templates/${created.id}`, [
      file('new {{body}}', 'application/octet-stream'),
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'body-change', body: 'new {{body}}' });
  });

  it('deletes a template', async () => {
    const created = (await create('doomed', 'x')).json();
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/v1/email/dynamic_templates/${created.id}`,
      headers: acme.auth,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Template deleted successfully', params: { id: created.id } });
    expect((await get(`/v1/email/dynamic_templates/${created.id}`)).statusCode).toBe(404);
  });

  it('accepts a DELETE carrying a JSON null body', async () => {
    const created = (await create('doomed-null', 'x')).json();
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/v1/email/dynamic_templates/${created.id}`,
      headers: { ...acme.auth, 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(res.statusCode).toBe(200);
  });

  it('refuses a second template with the same name with 409', async () => {
    await create('twice', 'a');
    const res = await create('twice', 'b');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error_code: 'email.template_exists', errors: [{ code: 409 }] });
  });

  it('refuses a body that is not valid Handlebars with 400', async () => {
    const res = await create('broken', '<p>{{#if x}}unclosed</p>');
    expect(res.statusCode).toBe(400);
    expect(res.json().error_code).toBe('email.template_invalid');
    const created = (await create('fine', 'ok')).json();
    const patch = await upload('PATCH', `/v1/email/dynamic_templates/${created.id}`, [file('{{/each}}')]);
    expect(patch.statusCode).toBe(400);
  });

  it('refuses a create without a name or without a body with 400', async () => {
    expect((await upload('POST', '/v1/email/dynamic_templates', [file('x')])).statusCode).toBe(400);
    expect(
      (await upload('POST', '/v1/email/dynamic_templates', [{ name: 'data[name]', value: 'no-body' }]))
        .statusCode,
    ).toBe(400);
  });

  it("answers 404 for another account's template, whatever the operation", async () => {
    const theirs = (await create('theirs', 'secret body', undefined, undefined, other)).json();
    const url = `/v1/email/dynamic_templates/${theirs.id}`;
    expect((await get(url)).statusCode).toBe(404);
    expect((await upload('PATCH', url, [{ name: 'data[name]', value: 'stolen' }])).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url, headers: acme.auth })).statusCode).toBe(404);
    expect((await get(url, other)).json().name).toBe('theirs');
  });

  it('answers 404 for an id that is not a number', async () => {
    expect((await get('/v1/email/dynamic_templates/abc')).statusCode).toBe(404);
  });
});

describe('POST /templated_messages', () => {
  let t: TestApp;
  let acme: TestAccount;
  let from: string;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createAccount({ username: 'tplsend' });
    from = `desk@${acme.domain}`;
    const m = multipart([
      { name: 'data[name]', value: 'appointment' },
      file(
        '<p>Dear {{name}}, see you on {{date}}.</p>{{#if vip}}<p>VIP</p>{{/if}}<ul>{{#each items}}<li>{{this}}</li>{{/each}}</ul>',
      ),
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/email/dynamic_templates',
      headers: { ...acme.auth, ...m.headers },
      payload: m.payload,
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => t.close());

  const { content: _content, ...templatedMessage } = message('placeholder');
  const sendTemplated = (data: Record<string, unknown>, url = '/v1/email/templated_messages') =>
    postJson(t, url, acme.auth, {
      data: {
        template_name: 'appointment',
        message: { ...templatedMessage, headers: { subject: 'Appointment for {{name}}', from } },
        ...data,
      },
    });
  const contentOf = (id: string) => storedMessage(t, id);

  it.each(['/v1/email/templated_messages', '/v1/tplsend/templated_messages', '/v1/templated_messages'])(
    'renders the template with the values and sends it at %s',
    async (url) => {
      const res = await sendTemplated(
        { template_values: JSON.stringify({ name: 'Pat', date: 'Monday', vip: 'true', items: ['a', 'b'] }) },
        url,
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ sourceTrackingId: expect.any(String), data: 'Service OK' });
      const { row, content } = await contentOf(res.json().sourceTrackingId);
      expect(row.source).toBe('template');
      expect(content.html).toBe('<p>Dear Pat, see you on Monday.</p><p>VIP</p><ul><li>a</li><li>b</li></ul>');
      expect(content.subject).toBe('Appointment for Pat');
    },
  );

  it('sends a text part made from the rendered HTML', async () => {
    const res = await sendTemplated({
      template_values: JSON.stringify({ name: '<b>Pat</b>', date: 'Monday' }),
    });
    const { content } = await contentOf(res.json().sourceTrackingId);
    expect(content.text).toBe('Dear <b>Pat</b>, see you on Monday.');
  });

  it('renders the same whatever the key order of the values', async () => {
    const a = await sendTemplated({ template_values: '{"name":"Lee","date":"Friday"}' });
    const b = await sendTemplated({ template_values: '{"date":"Friday","name":"Lee"}' });
    expect((await contentOf(a.json().sourceTrackingId)).content.html).toBe(
      (await contentOf(b.json().sourceTrackingId)).content.html,
    );
  });

  it('escapes HTML in values in the body', async () => {
    const res = await sendTemplated({ template_values: JSON.stringify({ name: '<b>Pat</b>', date: 'x' }) });
    const { content } = await contentOf(res.json().sourceTrackingId);
    expect(content.html).toContain('Dear &lt;b&gt;Pat&lt;/b&gt;,');
    expect(content.subject).toBe('Appointment for <b>Pat</b>');
  });

  it('tolerates content: {} in the message and echoes custom headers', async () => {
    const res = await postJson(t, '/v1/email/templated_messages', acme.auth, {
      data: {
        template_name: 'appointment',
        template_values: '{"name":"Pat"}',
        message: { ...templatedMessage, headers: { subject: 'Hi', from, 'x-template': 'yes' }, content: {} },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().customHeaders).toEqual({ 'X-Template': 'yes' });
  });

  it('answers 404 for a template name the account does not have', async () => {
    const res = await sendTemplated({ template_name: 'missing', template_values: '{}' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error_code).toBe('email.template_not_found');
  });

  it('answers 400 when template_values is not a JSON object', async () => {
    for (const values of ['{"name": ', '[1,2]', '"text"']) {
      const res = await sendTemplated({ template_values: values });
      expect(res.statusCode, values).toBe(400);
      expect(res.json().error_code).toBe('email.template_values_invalid');
    }
  });

  it('still checks the From domain of a templated send', async () => {
    const res = await postJson(t, '/v1/email/templated_messages', acme.auth, {
      data: {
        template_name: 'appointment',
        template_values: '{}',
        message: { ...templatedMessage, headers: { subject: 'x', from: 'a@elsewhere.example' } },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error_code).toBe('email.unverified_from');
  });
});
