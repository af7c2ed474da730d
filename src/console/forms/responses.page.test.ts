/** Responses in the console and uploaded files through the API: permission, search and dates, evidence, downloads, audit. */
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestBed } from '../console.test-support.ts';
import { createForm, tinyPng } from '../../forms/forms.test-support.ts';

const {
  t,
  a,
  clients: [owner, editor],
} = consoleTestBed(['owner', 'editor'], { config: { formsSubmitPerMinute: 0 } });
let formId: string;
let subIds: string[];
const PNG = tinyPng();

const form_json = {
  body: [
    { type: 'TextInput', id: 'n', properties: { field_name: 'name', text: 'Full name', required: true } },
    {
      type: 'FileUpload',
      id: 'f',
      properties: { field_name: 'scan', text: 'Insurance card', accept: ['image/png'] },
    },
    { type: 'Signature', id: 's', properties: { field_name: 'sig', text: 'Sign here', required: true } },
  ],
};

beforeAll(async () => {
  formId = await createForm(t.app, a.auth, {
    form_json,
    signable: true,
    signature_confirmation_label: 'I confirm these answers',
  });
  for (const name of ['Grace Hopper', 'Alan Turing']) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/forms/api/forms/${formId}/submissions`,
      payload: {
        form_data: { name, scan: 'card.png', sig: name },
        attachments: [{ name: 'card.png', field_name: 'scan', content: PNG.toString('base64') }],
      },
    });
    expect(res.statusCode).toBe(201);
  }
  const list = await t.app.inject({
    method: 'GET',
    url: `/v1/forms/api/forms/${formId}/submissions`,
    headers: a.auth,
  });
  subIds = (list.json() as { data: { id: string }[] }).data.map((d) => d.id);
});

async function actions(target: string): Promise<string[]> {
  const rows = await t.ctx.database.db
    .selectFrom('audit_log')
    .select('action')
    .where('target', '=', target)
    .execute();
  return rows.map((r) => r.action);
}

describe('responses in the console', () => {
  it('lists responses for a user allowed protected content, and records the view', async () => {
    const res = await owner.get(`/console/forms/${formId}/responses`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Grace Hopper');
    expect(res.body).toContain('Alan Turing');
    expect(await actions(`form:${formId}`)).toContain('form.submissions_read');
  });

  it('refuses responses, their files and exports to a user without the protected-content permission', async () => {
    for (const url of [
      `/console/forms/${formId}/responses`,
      `/console/forms/${formId}/responses.csv`,
      `/console/forms/${formId}/responses/${subIds[0]}`,
      `/console/forms/${formId}/responses/${subIds[0]}/files/scan`,
      `/console/forms/${formId}/responses/${subIds[0]}/pdf`,
    ])
      expect((await editor.get(url)).statusCode, url).toBe(403);
  });

  it('filters by text in the answers and by dates, and refuses a malformed date', async () => {
    const found = await owner.get(`/console/forms/${formId}/responses?search=hopper`);
    expect(found.body).toContain('Grace Hopper');
    expect(found.body).not.toContain('Alan Turing');
    const old = await owner.get(`/console/forms/${formId}/responses?to=2001-01-01`);
    expect(old.body).toContain('No responses match these filters');
    const today = new Date().toISOString().slice(0, 10);
    expect((await owner.get(`/console/forms/${formId}/responses?from=${today}&to=${today}`)).body).toContain(
      'Alan Turing',
    );
    expect((await owner.get(`/console/forms/${formId}/responses?from=yesterday`)).statusCode).toBe(400);
  });

  it('shows one response with its signature evidence and its file, which downloads with its bytes', async () => {
    const id = subIds[0]!;
    const page = await owner.get(`/console/forms/${formId}/responses/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('I confirm these answers');
    expect(page.body).toMatch(/Typed name: <strong>(Grace Hopper|Alan Turing)<\/strong>/);
    expect(page.body).toContain(`/responses/${id}/files/scan?inline=1`);
    const file = await owner.get(`/console/forms/${formId}/responses/${id}/files/scan`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['content-disposition']).toContain('attachment; filename="card.png"');
    expect(file.rawPayload.equals(PNG)).toBe(true);
    expect(await actions(`form_submission:${id}`)).toEqual(
      expect.arrayContaining(['form.submission_read', 'form.file_download']),
    );
  });

  it('exports every response as CSV and one as PDF, and records both exports', async () => {
    const csv = await owner.get(`/console/forms/${formId}/responses.csv`);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toContain('"Grace Hopper"');
    const pdf = await owner.get(`/console/forms/${formId}/responses/${subIds[1]}/pdf`);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const rows = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('detail')
      .where('action', '=', 'form.export')
      .execute();
    expect(rows.map((r) => JSON.parse(r.detail).format).sort()).toEqual(['csv', 'pdf']);
  });

  it('embeds an uploaded picture in the PDF of a response, beside its file name', async () => {
    const pdf = (await owner.get(`/console/forms/${formId}/responses/${subIds[0]}/pdf`)).rawPayload;
    const text = pdf.toString('latin1');
    expect(text.match(/\/Subtype \/Image/g)?.length).toBe(1);
    expect(text).toMatch(/\/Width 2\s+\/Height 2/);
  });
});

describe('uploaded files through the API', () => {
  const url = (sid: string, field: string) =>
    `/v1/forms/api/forms/${formId}/submissions/${sid}/files/${field}`;

  it('downloads a file with the forms key and records the download against the key', async () => {
    const res = await t.app.inject({ method: 'GET', url: url(subIds[1]!, 'scan'), headers: a.auth });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(PNG)).toBe(true);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const row = await t.ctx.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target', '=', `form_submission:${subIds[1]}`)
      .where('action', '=', 'form.file_download')
      .where('actor_type', '=', 'key')
      .executeTakeFirst();
    expect(row?.actor_id).toBe(a.keyId);
  });

  it('answers 404 for a field without a file, 401 without a key and 404 for another account', async () => {
    const none = await t.app.inject({ method: 'GET', url: url(subIds[1]!, 'name'), headers: a.auth });
    expect(none.statusCode).toBe(404);
    expect(none.json().error_code).toBe('form.file_not_found');
    expect((await t.app.inject({ method: 'GET', url: url(subIds[1]!, 'scan') })).statusCode).toBe(401);
    const other = await t.createAccount();
    expect(
      (await t.app.inject({ method: 'GET', url: url(subIds[1]!, 'scan'), headers: other.auth })).statusCode,
    ).toBe(404);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toContain(
      '/v1/forms/api/forms/{id}/submissions/{submission_id}/files/{field_name}',
    );
  });
});
