/** The forms list and builder over HTTP: steps without JavaScript, saving through the service (422 rules), roles and CSRF. */
import { describe, expect, it } from 'vitest';
import { consoleTestBed } from '../console.test-support.ts';
import { contactForm, createForm } from '../../forms/forms.test-support.ts';
import { storedForm } from './forms.page.test-support.ts';

const {
  t,
  a,
  clients: [editor, viewer],
} = consoleTestBed(['editor', 'viewer']);

/** Reads every named input, textarea and selected option of the builder form, as the browser would post it. */
function builderFields(page: string): Record<string, string> {
  const form =
    /<form method="post" action="\/console\/forms\/[^"]+" class="builder-editor"[\s\S]*?<\/form>/.exec(
      page,
    )![0];
  const out: Record<string, string> = {};
  for (const m of form.matchAll(/<input([^>]*)>/g)) {
    const attrs = m[1]!;
    const name = /name="([^"]+)"/.exec(attrs)?.[1];
    if (!name || /type="radio"/.test(attrs)) continue;
    if (/type="checkbox"/.test(attrs) && !/checked/.test(attrs)) continue;
    out[name] = unescape(/value="([^"]*)"/.exec(attrs)?.[1] ?? '');
  }
  for (const m of form.matchAll(/<textarea[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g))
    out[m[1]!] = unescape(m[2]!);
  for (const m of form.matchAll(/<select[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g))
    out[m[1]!] = unescape(
      /<option[^>]*value="([^"]*)"[^>]*selected/.exec(m[2]!)?.[1] ??
        /<option(?: value="([^"]*)")?>([^<]*)/.exec(m[2]!)?.[1] ??
        '',
    );
  return out;
}

function unescape(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The text of the builder's error alert. */
function alertOf(page: string): string {
  return /id="builder-error">([\s\S]*?)<\/div>/.exec(page)?.[1] ?? '';
}

const stored = (id: string) => storedForm(t, a, id);

describe('forms list and builder', () => {
  it('creates a form, adds three component types without JavaScript, saves it through the service and publishes it', async () => {
    const created = await editor.post('/console/forms/new', { _csrf: editor.csrf, title: 'Intake' });
    expect(created.statusCode).toBe(303);
    const url = created.headers.location as string;
    const id = url.split('/').pop()!;
    let page = (await editor.get(url)).body;
    for (const [type, label] of [
      ['TextInput', 'Your name'],
      ['Select', 'Preferred time'],
      ['Checkbox', 'I agree'],
    ] as const) {
      const res = await editor.post(url, {
        ...builderFields(page),
        _csrf: editor.csrf,
        op: 'add',
        add_type: type,
        add_label: label,
      });
      expect(res.statusCode).toBe(200);
      page = res.body;
    }
    expect((await stored(id)).form_json.body).toHaveLength(0);
    const fields = builderFields(page);
    fields['c0.p.required'] = 'true';
    fields['c1.p.options'] = 'Morning\nAfternoon|pm';
    const saved = await editor.post(url, { ...fields, _csrf: editor.csrf, op: 'save' });
    expect(saved.statusCode).toBe(303);
    const form = await stored(id);
    expect(form.form_json.body.map((c) => c.type)).toEqual(['TextInput', 'Select', 'Checkbox']);
    expect(form.form_json.body[0]!.properties).toMatchObject({
      field_name: 'your_name',
      text: 'Your name',
      required: true,
    });
    expect(form.form_json.body[1]!.properties.options).toEqual([
      'Morning',
      { label: 'Afternoon', value: 'pm' },
    ]);
    expect(form.active).toBe(false);
    expect((await editor.post(`${url}/publish`, { _csrf: editor.csrf })).statusCode).toBe(303);
    expect((await stored(id)).active).toBe(true);
    const audit = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('target', '=', `form:${id}`)
      .execute();
    expect(audit.map((r) => r.action).sort()).toEqual(['form.create', 'form.publish', 'form.update']);
    const list = await editor.get('/console/forms');
    expect(list.body).toContain('Intake');
  });

  it('moves and deletes components with buttons, without saving until Save', async () => {
    const id = await createForm(t.app, a.auth);
    const url = `/console/forms/${id}`;
    const before = await stored(id);
    const fields = builderFields((await editor.get(url)).body);
    const moved = await editor.post(url, { ...fields, _csrf: editor.csrf, op: 'down:0' });
    const after = builderFields(moved.body);
    expect([after['c0.type'], after['c1.type']]).toEqual(['TextInput', 'Heading']);
    const deleted = builderFields(
      (await editor.post(url, { ...after, _csrf: editor.csrf, op: 'delete:1' })).body,
    );
    expect(Number(deleted.count)).toBe(contactForm().body.length - 1);
    expect((await stored(id)).version).toBe(before.version);
    await editor.post(url, { ...deleted, _csrf: editor.csrf, op: 'save' });
    const saved = await stored(id);
    expect(saved.form_json.body[0]!.type).toBe('TextInput');
    expect(saved.form_json.body.some((c) => c.type === 'Heading')).toBe(false);
  });

  it('refuses a definition the API refuses, shows why beside the editor and saves nothing', async () => {
    const id = await createForm(t.app, a.auth);
    const url = `/console/forms/${id}`;
    const before = await stored(id);
    const fields = builderFields((await editor.get(url)).body);
    fields['c2.p.field_name'] = 'name';
    const res = await editor.post(url, { ...fields, _csrf: editor.csrf, op: 'save' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('role="alert" id="builder-error"');
    expect(res.body).toContain(
      '\u201cEmail\u201d: another component already uses the field name &quot;name&quot;',
    );
    expect(alertOf(res.body)).not.toContain('form_json');
    expect(res.body).toMatch(/class="component has-error" data-index="2"/);
    expect(await stored(id)).toEqual(before);
  });

  it('applies a pasted JSON definition and refuses one with an unknown type', async () => {
    const id = await createForm(t.app, a.auth);
    const url = `/console/forms/${id}`;
    const fields = builderFields((await editor.get(url)).body);
    const json = JSON.stringify({ body: [{ type: 'Paragraph', id: 'p', properties: { text: 'Hello' } }] });
    const ok = builderFields(
      (await editor.post(url, { ...fields, _csrf: editor.csrf, op: 'json', json })).body,
    );
    expect(ok.count).toBe('1');
    const bad = JSON.stringify({ body: [{ type: 'Marquee', id: 'm', properties: {} }] });
    const res = await editor.post(url, { ...fields, _csrf: editor.csrf, op: 'json', json: bad });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('Component (component 1): choose a type');
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'answers 422 for the prototype name %s as a component type in the builder, the JSON and the preview',
    async (type) => {
      const id = await createForm(t.app, a.auth);
      const url = `/console/forms/${id}`;
      const before = await stored(id);
      const fields = { ...builderFields((await editor.get(url)).body), 'c0.type': type, _csrf: editor.csrf };
      for (const op of ['save', 'down:1']) {
        const res = await editor.post(url, { ...fields, op });
        expect(res.statusCode, op).toBe(422);
        expect(res.body).toContain('\u201cContact us\u201d: choose a type');
      }
      const json = JSON.stringify({ body: [{ type, id: 'x', properties: {} }] });
      expect((await editor.post(url, { ...fields, 'c0.type': 'Heading', op: 'json', json })).statusCode).toBe(
        422,
      );
      const preview = await editor.post(`${url}/preview`, fields);
      expect(preview.statusCode).toBe(422);
      expect(preview.body).toContain('\u201cContact us\u201d: choose a type');
      expect(await stored(id)).toEqual(before);
    },
  );

  it('previews the unsaved state with the hosted renderer, frameable only by the console', async () => {
    const id = await createForm(t.app, a.auth);
    const fields = builderFields((await editor.get(`/console/forms/${id}`)).body);
    fields['c1.p.text'] = 'Name as on your card';
    const res = await editor.post(`/console/forms/${id}/preview`, { ...fields, _csrf: editor.csrf });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<label for="sp-1">Name as on your card');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(res.headers['content-security-policy']).toContain("form-action 'none'");
    expect((await viewer.get(`/console/forms/${id}/preview`)).statusCode).toBe(200);
  });

  it('lets a viewer look but refuses every change on the server', async () => {
    const id = await createForm(t.app, a.auth);
    const before = await stored(id);
    const page = await viewer.get(`/console/forms/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('value="save"');
    const fields = builderFields(page.body);
    for (const [url, form] of [
      [`/console/forms/${id}`, { ...fields, op: 'save', title: 'Changed' }],
      [`/console/forms/${id}/unpublish`, {}],
      ['/console/forms/new', { title: 'Sneaky' }],
    ] as const) {
      const res = await viewer.post(url, { ...form, _csrf: viewer.csrf });
      expect(res.statusCode).toBe(403);
    }
    expect(await stored(id)).toEqual(before);
  });

  it('stores who is notified, the signature requirement and the affirmed sentence from the builder', async () => {
    const id = await createForm(t.app, a.auth);
    const url = `/console/forms/${id}`;
    let fields = builderFields((await editor.get(url)).body);
    const added = await editor.post(url, {
      ...fields,
      _csrf: editor.csrf,
      op: 'add',
      add_type: 'Signature',
      add_label: 'Your signature',
    });
    fields = builderFields(added.body);
    expect(fields.signable).toBe('true');
    fields.recipient = 'front-desk@clinic.example, dr.lee@clinic.example';
    fields.affirmation = 'I confirm my answers are true.';
    const saved = await editor.post(url, { ...fields, _csrf: editor.csrf, op: 'save' });
    expect(saved.statusCode).toBe(303);
    const form = (await stored(id)) as unknown as Record<string, unknown>;
    expect(form).toMatchObject({
      recipient: 'front-desk@clinic.example, dr.lee@clinic.example',
      signable: true,
      signature_confirmation_label: 'I confirm my answers are true.',
    });
    const again = builderFields((await editor.get(url)).body);
    expect([again.recipient, again.signable, again.affirmation]).toEqual([
      form.recipient,
      'true',
      'I confirm my answers are true.',
    ]);
  });

  it.each([
    [
      'recipient',
      'front-desk@clinic.example, not an address',
      'Notify of each response: \u201cnot an address\u201d is not an email address',
    ],
    ['affirmation', 'x'.repeat(1001), 'The sentence the signer affirms must be at most 1000 characters'],
    ['signable', 'true', 'Requires a signature: add a Signature component, or untick it'],
  ])('refuses a bad %s setting in plain words and saves nothing', async (name, value, message) => {
    const id = await createForm(t.app, a.auth);
    const url = `/console/forms/${id}`;
    const before = await stored(id);
    const fields = builderFields((await editor.get(url)).body);
    const res = await editor.post(url, { ...fields, [name]: value, _csrf: editor.csrf, op: 'save' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain(message);
    expect(await stored(id)).toEqual(before);
  });

  it('asks for the label first and makes a unique field name from it, editable under Advanced', async () => {
    const id = await createForm(t.app, a.auth);
    const url = `/console/forms/${id}`;
    let fields = builderFields((await editor.get(url)).body);
    const unnamed = await editor.post(url, {
      ...fields,
      _csrf: editor.csrf,
      op: 'add',
      add_type: 'DateInput',
    });
    expect(unnamed.statusCode).toBe(422);
    expect(unnamed.body).toContain('give the new component a label first');
    const n = contactForm().body.length;
    for (const _ of [1, 2]) {
      const res = await editor.post(url, {
        ...fields,
        _csrf: editor.csrf,
        op: 'add',
        add_type: 'DateInput',
        add_label: 'Date of birth (Geburtsdatum)',
      });
      expect(res.statusCode).toBe(200);
      fields = builderFields(res.body);
      expect(res.body).toMatch(new RegExp(`<details class="advanced">[\\s\\S]*?id="c${n}-field_name"`));
    }
    expect([fields[`c${n}.p.field_name`], fields[`c${n + 1}.p.field_name`]]).toEqual([
      'date_of_birth_geburtsdatum',
      'date_of_birth_geburtsdatum_2',
    ]);
    expect(fields[`c${n}.p.text`]).toBe('Date of birth (Geburtsdatum)');
    fields[`c${n + 1}.p.field_name`] = 'dob';
    expect((await editor.post(url, { ...fields, _csrf: editor.csrf, op: 'save' })).statusCode).toBe(303);
    const names = (await stored(id)).form_json.body.map((c) => c.properties.field_name);
    expect(names.slice(-2)).toEqual(['date_of_birth_geburtsdatum', 'dob']);
  });

  it('names a refused component by its label, never by its place in the JSON', async () => {
    const id = await createForm(t.app, a.auth);
    const url = `/console/forms/${id}`;
    const fields = builderFields((await editor.get(url)).body);
    fields['c3.p.options'] = '';
    fields['c4.p.max_length'] = 'lots';
    for (const [change, message] of [
      [{ 'c4.p.max_length': '' }, '\u201cTopic\u201d: Options is required'],
      [{ 'c3.p.options': 'A' }, '\u201cMessage\u201d: Longest answer must be'],
    ] as const) {
      const res = await editor.post(url, { ...fields, ...change, _csrf: editor.csrf, op: 'save' });
      expect(res.statusCode).toBe(422);
      expect(res.body).toContain(message);
      expect(alertOf(res.body)).not.toMatch(/form_json|body\[/);
    }
  });

  it('hides the Responses links from a viewer, who may not read responses', async () => {
    const id = await createForm(t.app, a.auth);
    for (const path of [
      `/console/forms/${id}`,
      `/console/forms/${id}/look`,
      `/console/forms/${id}/share`,
      '/console/forms',
    ]) {
      const page = await viewer.get(path);
      expect(page.statusCode, path).toBe(200);
      expect(page.body, path).not.toContain(`/console/forms/${id}/responses`);
    }
    expect((await viewer.get(`/console/forms/${id}/responses`)).statusCode).toBe(403);
  });

  it('gives a viewer the saved form in the preview without posting the read-only editor', async () => {
    const id = await createForm(t.app, a.auth);
    const page = await viewer.get(`/console/forms/${id}`);
    expect(page.body).not.toContain('id="preview-button"');
    const preview = await viewer.get(`/console/forms/${id}/preview`);
    expect(preview.body).toContain('<label for="sp-1"><b>Full name</b>');
  });

  it('refuses a save without the CSRF token', async () => {
    const id = await createForm(t.app, a.auth);
    const res = await editor.post(`/console/forms/${id}`, { op: 'save', count: '0', title: 'Emptied' });
    expect(res.statusCode).toBe(403);
    expect((await stored(id)).title).toBe('Contact');
  });
});
