import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { createForm, GOOD } from '../forms.test-support.ts';
import { SORT_WINDOW } from './submission-list.ts';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp({ config: { formsSubmitPerMinute: 0 } });
  a = await t.createAccount();
});
afterAll(() => t.close());

const submit = (id: string, form_data: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/v1/forms/api/forms/${id}/submissions`, payload: { form_data } });
const list = async (id: string, query = '') => {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v1/forms/api/forms/${id}/submissions${query}`,
    headers: a.auth,
  });
  return res;
};

/** A form whose email field (the Email mask, under another name) may be left empty. */
const optionalEmailForm = {
  body: [
    { type: 'TextInput', id: 'n', properties: { field_name: 'name', text: 'Name' } },
    {
      type: 'TextInput',
      id: 'e',
      properties: { field_name: 'contact_address', text: 'Address', input_mask: 'Email' },
    },
  ],
};

describe('submission list', () => {
  it("carries submitter_email from the form's email field", async () => {
    const id = await createForm(t.app, a.auth);
    await submit(id, GOOD);
    const rec = (await list(id)).json().data[0];
    expect(rec.submitter_email).toBe('ada@example.org');
  });

  it('gives submitter_email null when the form has no email field', async () => {
    const id = await createForm(t.app, a.auth, {
      form_json: { body: [{ type: 'TextInput', id: 'n', properties: { field_name: 'name', text: 'Name' } }] },
    });
    await submit(id, { name: 'Ada' });
    expect((await list(id)).json().data[0].submitter_email).toBeNull();
  });

  it('filters by submission_id', async () => {
    const id = await createForm(t.app, a.auth);
    for (const name of ['One', 'Two', 'Three']) await submit(id, { ...GOOD, name });
    const all = (await list(id)).json();
    const wanted = all.data[1];
    const one = (await list(id, `?submission_id=${wanted.id}`)).json();
    expect(one.data.map((r: { id: string }) => r.id)).toEqual([wanted.id]);
    expect(one.total).toBe(1);
    const none = (await list(id, '?submission_id=00000000-0000-4000-8000-000000000000')).json();
    expect(none).toMatchObject({ data: [], total: 0 });
  });

  it('orders by submitter_email either way, case-insensitively, with no address last', async () => {
    const id = await createForm(t.app, a.auth, { form_json: optionalEmailForm });
    for (const addr of ['carol@example.org', '', 'Alice@example.org', 'bob@example.org'])
      expect((await submit(id, { name: 'x', contact_address: addr })).statusCode).toBe(201);
    const emails = async (q: string) =>
      (await list(id, q)).json().data.map((r: { submitter_email: string | null }) => r.submitter_email);
    expect(await emails('?order_by=submitter_email&order=asc')).toEqual([
      'Alice@example.org',
      'bob@example.org',
      'carol@example.org',
      null,
    ]);
    expect(await emails('?order_by=submitter_email&order=desc')).toEqual([
      'carol@example.org',
      'bob@example.org',
      'Alice@example.org',
      null,
    ]);
    expect(await emails('?order_by=submitter_email&order=asc&page=2&items=2')).toEqual([
      'carol@example.org',
      null,
    ]);
  });

  it('orders submissions stored before addresses were sealed apart by their data', async () => {
    const id = await createForm(t.app, a.auth);
    for (const email of ['zed@example.org', 'amy@example.org']) await submit(id, { ...GOOD, email });
    await t.ctx.database.db
      .updateTable('form_submissions')
      .set({ submitter_email: null })
      .where('form_id', '=', id)
      .execute();
    const res = (await list(id, '?order_by=submitter_email&order=asc')).json();
    expect(res.data.map((r: { submitter_email: string }) => r.submitter_email)).toEqual([
      'amy@example.org',
      'zed@example.org',
    ]);
  });

  it('refuses a page beyond the sorting window with 400 naming page', async () => {
    const id = await createForm(t.app, a.auth);
    const page = SORT_WINDOW / 100 + 1;
    const res = await list(id, `?order_by=submitter_email&items=100&page=${page}`);
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain('page');
  });

  it('keeps the address sealed at rest', async () => {
    const id = await createForm(t.app, a.auth);
    await submit(id, GOOD);
    const raw = await t.ctx.database.db
      .selectFrom('form_submissions')
      .select('submitter_email')
      .where('form_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(raw.submitter_email).toBeTruthy();
    expect(raw.submitter_email).not.toContain('ada@');
  });
});
