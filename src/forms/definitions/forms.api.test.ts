import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { contactForm, createForm } from '../forms.test-support.ts';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = a.auth) =>
  t.app.inject({ method: 'GET', url, headers });

describe('form definitions', () => {
  it('creates a form and reads back every field, with component HTML sanitized and form_html rendered', async () => {
    const id = await createForm(t.app, a.auth, {
      description: 'Reach the clinic',
      customer_id: a.account.customer_id,
      recipient: 'desk@example.org',
    });
    const res = await get(`/v1/forms/api/forms/${id}`);
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json())).toEqual(['data']);
    const f = res.json().data;
    expect(Object.keys(f).sort()).toEqual(
      [
        'active',
        'archived',
        'created_at',
        'customer_id',
        'deleted',
        'description',
        'form_css',
        'form_html',
        'form_json',
        'id',
        'number',
        'old_form_id',
        'recipient',
        'signable',
        'signature_confirmation_label',
        'submission_count',
        'subscription_list_id',
        'title',
        'type',
        'updated_at',
        'vanity_url',
        'version',
      ].sort(),
    );
    expect(f).toMatchObject({
      title: 'Contact',
      active: true,
      archived: false,
      deleted: false,
      submission_count: 0,
      version: 1,
      vanity_url: null,
    });
    expect(f.form_json.body[1].properties.text).toBe('<b>Full name</b>');
    expect(f.form_html).toContain('name="email"');
    expect(f.form_html).not.toContain('<script');
  });

  it('keeps form_html and form_css as given', async () => {
    const id = await createForm(t.app, a.auth, { form_html: '<p>custom</p>', form_css: 'body{color:red}' });
    const f = (await get(`/forms/api/forms/${id}`)).json().data;
    expect([f.form_html, f.form_css]).toEqual(['<p>custom</p>', 'body{color:red}']);
  });

  it.each([
    [{ body: [{ type: 'Carousel', id: 'x', properties: {} }] }, 'form_json.body[0] (Carousel)'],
    [
      {
        body: [
          { type: 'TextInput', id: 'a', properties: { field_name: 'a' } },
          { type: 'TextInput', id: 'b', properties: { field_name: 'b', input_mask: 'SSN' } },
        ],
      },
      'form_json.body[1] (TextInput)',
    ],
    [
      {
        body: [
          { type: 'TextInput', id: 'a', properties: { field_name: 'a' } },
          { type: 'TextInput', id: 'a', properties: { field_name: 'b' } },
        ],
      },
      'duplicate id',
    ],
    [
      {
        body: [
          { type: 'TextInput', id: 'a', properties: { field_name: 'x' } },
          { type: 'Select', id: 'b', properties: { field_name: 'x', options: ['1'] } },
        ],
      },
      'form_json.body[1] (Select): duplicate field_name',
    ],
    [{}, 'body'],
  ])('refuses an invalid form_json with 422 naming the component (%#)', async (form_json, words) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/forms/api/forms',
      headers: a.auth,
      payload: { title: 'Bad', form_json },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toContain(words);
    expect(res.json().error_code).toBe('form.invalid_definition');
  });

  it('answers 401 without a key, with a key lacking the forms scope, and 403 for another customer', async () => {
    expect((await get('/v1/forms/api/forms', {})).statusCode).toBe(401);
    const mailOnly = await t.createAccount({ scopes: 'email' });
    expect((await get('/v1/forms/api/forms', mailOnly.auth)).statusCode).toBe(401);
    expect((await get(`/v1/forms/api/forms?customer_id=${a.account.customer_id + 999}`)).statusCode).toBe(
      403,
    );
    expect(
      (await get(`/v1/forms/api/forms/stats?customer_id=${a.account.customer_id + 999}`)).statusCode,
    ).toBe(403);
  });

  it('lists with search, filters, order and pages', async () => {
    const b = await t.createAccount();
    for (const title of ['Alpha intake', 'Beta survey', 'Gamma intake'])
      await createForm(t.app, b.auth, { title });
    const page = (
      await get('/v1/forms/api/forms?search=INTAKE&order_by=title&order=asc&items=1&page=2', b.auth)
    ).json();
    expect(page.results.map((f: { title: string }) => f.title)).toEqual(['Gamma intake']);
    expect(page.page_info).toEqual({ count: 2, pages: 2, page: 2, items: 1 });
    const fallback = (
      await get(`/v1/forms/api/forms?customer_id=${b.account.customer_id}&order_by=nonsense`, b.auth)
    ).json();
    expect(fallback.results.map((f: { title: string }) => f.title)).toEqual([
      'Gamma intake',
      'Beta survey',
      'Alpha intake',
    ]);
    const one = fallback.results[1].id;
    expect((await get(`/v1/forms/api/forms?form_id=${one}`, b.auth)).json().results).toHaveLength(1);
    await t.app.inject({
      method: 'POST',
      url: `/v1/forms/api/forms/${one}/archive`,
      headers: { ...b.auth, 'content-type': 'application/json' },
      payload: '',
    });
    expect((await get('/v1/forms/api/forms?archived=true', b.auth)).json().page_info.count).toBe(1);
    expect((await get('/v1/forms/api/forms?active=true', b.auth)).json().page_info.count).toBe(2);
    expect((await get('/v1/forms/api/forms?items=101', b.auth)).statusCode).toBe(400);
  });

  it('updates partially, archives (inactive), unarchives (still inactive) and deletes', async () => {
    const id = await createForm(t.app, a.auth);
    const put = await t.app.inject({
      method: 'PUT',
      url: `/v1/forms/api/forms/${id}`,
      headers: a.auth,
      payload: { title: 'Renamed', form_json: contactForm() },
    });
    expect(put.json()).toEqual({ detail: 'Form updated', form_id: id });
    expect((await get(`/v1/forms/api/forms/${id}`)).json().data).toMatchObject({
      title: 'Renamed',
      version: 2,
      description: null,
    });
    const bad = await t.app.inject({
      method: 'PUT',
      url: `/v1/forms/api/forms/${id}`,
      headers: a.auth,
      payload: { form_json: { body: [{ type: 'Nope', id: '1' }] } },
    });
    expect(bad.statusCode).toBe(422);
    expect(
      (
        await t.app.inject({ method: 'POST', url: `/v1/forms/api/forms/${id}/archive`, headers: a.auth })
      ).json(),
    ).toEqual({
      detail: 'Form archived',
    });
    expect((await get(`/v1/forms/api/forms/${id}`)).json().data).toMatchObject({
      archived: true,
      active: false,
    });
    await t.app.inject({ method: 'POST', url: `/v1/forms/api/forms/${id}/unarchive`, headers: a.auth });
    expect((await get(`/v1/forms/api/forms/${id}`)).json().data).toMatchObject({
      archived: false,
      active: false,
    });
    expect((await get(`/v1/forms/public/form_data/${id}`, {})).statusCode).toBe(404);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/v1/forms/api/forms/${id}`, headers: a.auth }))
        .statusCode,
    ).toBe(200);
    expect((await get(`/v1/forms/api/forms/${id}`)).statusCode).toBe(404);
    expect((await get(`/v1/forms/api/forms?form_id=${id}`)).json().results).toEqual([]);
  });

  it('copies a form with a new title, no submissions and no vanity URL', async () => {
    const id = await createForm(t.app, a.auth);
    await t.app.inject({
      method: 'PUT',
      url: `/v1/forms/api/forms/${id}`,
      headers: a.auth,
      payload: { vanity_url: 'contact-us' },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/forms/api/forms/copy',
      headers: a.auth,
      payload: { form_id: id, title: 'Copy' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ title: 'Copy', submission_count: 0, vanity_url: null });
    expect(res.json().id).not.toBe(id);
    const source = (await get(`/v1/forms/api/forms/${id}`)).json().data;
    expect(Number.isInteger(source.number)).toBe(true);
    expect(res.json().old_form_id).toBe(source.number);
    expect(res.json().number).not.toBe(source.number);
    const again = await t.app.inject({
      method: 'POST',
      url: '/v1/forms/api/forms/copy',
      headers: a.auth,
      payload: { form_id: res.json().id, title: 'Copy 2' },
    });
    expect(again.json().old_form_id).toBe(res.json().number);
    const listed = (await get(`/v1/forms/api/forms?form_id=${res.json().id}`)).json().results[0];
    expect(listed.old_form_id).toBe(res.json().old_form_id);
    expect((await get(`/v1/forms/api/forms/${id}`)).json().data.old_form_id).toBeNull();
    const missing = await t.app.inject({
      method: 'POST',
      url: '/v1/forms/api/forms/copy',
      headers: a.auth,
      payload: { form_id: 'nope', title: 'x' },
    });
    expect(missing.statusCode).toBe(404);
  });

  it('serves exactly the public subset without a key, ignoring an Authorization header', async () => {
    const id = await createForm(t.app, a.auth);
    const res = await get(`/v1/forms/public/form_data/${id}`, { authorization: 'Bearer not-a-key' });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(
      [
        'active',
        'created_at',
        'customer_id',
        'description',
        'form_css',
        'form_html',
        'form_json',
        'id',
        'signable',
        'submission_count',
        'title',
        'updated_at',
      ].sort(),
    );
    expect((await get('/forms/public/form_data/00000000-0000-4000-8000-000000000000', {})).statusCode).toBe(
      404,
    );
  });
});
