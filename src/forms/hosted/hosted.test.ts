import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { createForm, postHosted } from '../forms.test-support.ts';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp({ config: { formsSubmitPerMinute: 0 } });
  a = await t.createAccount();
});
afterAll(() => t.close());

const post = (id: string, fields: Record<string, string>) => postHosted(t.app, id, fields);
const token = (html: string) => /name="_sp_token" value="([^"]+)"/.exec(html)![1]!;

describe('hosted form page', () => {
  it('renders the form server-side with labels and the form CSS kept inside its style element', async () => {
    const id = await createForm(t.app, a.auth, {
      form_css: '.sp-button{color:teal}</style><script>x</script>',
    });
    const res = await t.app.inject({ method: 'GET', url: `/f/${id}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('<label for="sp-1"><b>Full name</b>');
    expect(res.body).toContain('id="sp-1"');
    expect(res.body).toContain('.sp-button{color:teal}');
    expect(res.body).not.toContain('</style><script');
    expect(res.body).not.toContain('alert(1)');
  });

  it('re-renders a failed post with 422, messages next to fields and the entered values', async () => {
    const id = await createForm(t.app, a.auth);
    const page = (await t.app.inject({ method: 'GET', url: `/f/${id}` })).body;
    const res = await post(id, { _sp_token: token(page), name: 'Grace <Hopper>', email: 'nope' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('value="Grace &lt;Hopper&gt;"');
    expect(res.body).toMatch(
      /aria-describedby="sp-2-error"[^>]*>\s*<p class="sp-error" id="sp-2-error">must be a valid email address<\/p>/,
    );
    expect(res.body).toContain('<p class="sp-error" id="sp-5-error">must be checked</p>');
  });

  it('redirects to the thank-you page after success and counts a double post once', async () => {
    const id = await createForm(t.app, a.auth);
    const tok = token((await t.app.inject({ method: 'GET', url: `/f/${id}` })).body);
    const fields = {
      _sp_token: tok,
      name: 'Grace',
      email: 'grace@example.org',
      consent: 'true',
      topic: 'Billing',
    };
    const first = await post(id, fields);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe(`/f/${id}/thanks`);
    expect((await post(id, fields)).statusCode).toBe(303);
    const thanks = await t.app.inject({ method: 'GET', url: `/f/${id}/thanks` });
    expect(thanks.body).toContain('Thank you');
    const list = await t.app.inject({
      method: 'GET',
      url: `/v1/forms/api/forms/${id}/submissions`,
      headers: a.auth,
    });
    expect(list.json().total).toBe(1);
    expect(JSON.parse(list.json().data[0].form_data)).toEqual({
      name: 'Grace',
      email: 'grace@example.org',
      topic: 'Billing',
      consent: true,
    });
  });

  it("shows a signable form's affirmation sentence beside the signature field, and records that sentence", async () => {
    const form_json = {
      body: [
        { type: 'Signature', id: 's', properties: { field_name: 'sig', text: 'Sign here', required: true } },
      ],
    };
    const labelled = await createForm(t.app, a.auth, {
      form_json,
      signable: true,
      signature_confirmation_label: 'I confirm this is true.',
    });
    const page = (await t.app.inject({ method: 'GET', url: `/f/${labelled}` })).body;
    expect(page).toMatch(
      /<label for="sp-0">Sign here.*<p class="sp-affirmation" id="sp-0-affirmation">I confirm this is true\.<\/p>/,
    );
    expect(page).toContain('aria-describedby="sp-0-affirmation sp-0-hint"');
    const plain = await createForm(t.app, a.auth, { form_json, signable: true });
    const tok = token((await t.app.inject({ method: 'GET', url: `/f/${plain}` })).body);
    const shown = /<p class="sp-affirmation"[^>]*>([^<]+)<\/p>/.exec(
      (await t.app.inject({ method: 'GET', url: `/f/${plain}` })).body,
    )![1];
    expect(shown).toContain('electronic signature');
    expect((await post(plain, { _sp_token: tok, sig: 'Ada Lovelace' })).statusCode).toBe(303);
    const ev = await t.ctx.database.db
      .selectFrom('form_signatures')
      .select('label')
      .where('form_id', '=', plain)
      .executeTakeFirstOrThrow();
    expect(ev.label).toBe(shown);
    expect(page).toContain('<p class="sp-hint" id="sp-0-hint">Type your full name to sign.</p>');
    const spanish = await createForm(t.app, a.auth, {
      form_json: { ...form_json, settings: { language: 'es' } },
    });
    expect((await t.app.inject({ method: 'GET', url: `/f/${spanish}` })).body).toContain(
      '<p class="sp-hint" id="sp-0-hint">Escriba su nombre completo para firmar.</p>',
    );
    const unsigned = await createForm(t.app, a.auth, { form_json });
    expect((await t.app.inject({ method: 'GET', url: `/f/${unsigned}` })).body).not.toContain(
      '<p class="sp-affirmation"',
    );
  });

  it('serves a form at its vanity name, and stops when the form is archived', async () => {
    const id = await createForm(t.app, a.auth, { vanity_url: `clinic-intake-${Date.now()}` });
    const vanity = (
      await t.app.inject({ method: 'GET', url: `/v1/forms/api/forms/${id}`, headers: a.auth })
    ).json().data.vanity_url;
    const res = await t.app.inject({ method: 'GET', url: `/f/${vanity}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`action="/f/${id}"`);
    await t.app.inject({ method: 'POST', url: `/v1/forms/api/forms/${id}/archive`, headers: a.auth });
    expect((await t.app.inject({ method: 'GET', url: `/f/${vanity}` })).statusCode).toBe(404);
  });

  it('shows a not-found page for an unknown or inactive form', async () => {
    const id = await createForm(t.app, a.auth, { active: false });
    expect((await t.app.inject({ method: 'GET', url: `/f/${id}` })).statusCode).toBe(404);
    expect((await post('00000000-0000-4000-8000-000000000000', { name: 'x' })).statusCode).toBe(404);
  });
});
