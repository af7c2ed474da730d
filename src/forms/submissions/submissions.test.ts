import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { createForm, GOOD, tinyPng } from '../forms.test-support.ts';
import { openContent } from '../../mail/content.ts';
import { handleSubmitted } from '../forms.worker.ts';
import { addRespondentToList } from '../../marketing/subscribers/form-respondents.ts';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp({ config: { formsSubmitPerMinute: 0, formsSubmitMaxBytes: 200_000 } });
  a = await t.createAccount();
});
afterAll(() => t.close());

const submit = (id: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: `/v1/forms/api/forms/${id}/submissions`,
    headers,
    payload: payload as object,
  });
const get = (url: string) => t.app.inject({ method: 'GET', url, headers: a.auth });
const PNG = tinyPng();

describe('public submissions', () => {
  it('stores a valid submission (201, empty body) and lists it with form_data as a JSON string', async () => {
    const id = await createForm(t.app, a.auth);
    const res = await submit(
      id,
      { form_data: { ...GOOD, unknown_key: 'dropped' } },
      { authorization: 'Bearer whatever' },
    );
    expect(res.statusCode).toBe(201);
    expect(res.body).toBe('');
    const list = (await get(`/v1/forms/api/forms/${id}/submissions`)).json();
    expect(list).toMatchObject({ total: 1, page: 1, items: 50 });
    expect(JSON.parse(list.data[0].form_data)).toEqual(GOOD);
    const raw = await t.ctx.database.db
      .selectFrom('form_submissions')
      .select('data')
      .where('form_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(raw.data).not.toContain('Lovelace');
    expect((await get(`/v1/forms/api/forms/${id}`)).json().data.submission_count).toBe(1);
  });

  it('answers 422 listing every failing field without echoing values', async () => {
    const id = await createForm(t.app, a.auth);
    const res = await submit(id, {
      form_data: { email: 'not-an-email-secret', topic: 'Other', consent: false },
    });
    expect(res.statusCode).toBe(422);
    const fields = res.json().fields.map((f: { field: string }) => f.field);
    expect(fields).toEqual(['name', 'email', 'topic', 'consent']);
    expect(res.body).not.toContain('not-an-email-secret');
    expect((await get(`/v1/forms/api/forms/${id}/submissions`)).json().total).toBe(0);
  });

  it('answers 404 for unknown, inactive, archived and deleted forms', async () => {
    expect((await submit('00000000-0000-4000-8000-000000000000', { form_data: GOOD })).statusCode).toBe(404);
    const inactive = await createForm(t.app, a.auth, { active: false });
    expect((await submit(inactive, { form_data: GOOD })).statusCode).toBe(404);
    const archived = await createForm(t.app, a.auth);
    await t.app.inject({ method: 'POST', url: `/v1/forms/api/forms/${archived}/archive`, headers: a.auth });
    expect((await submit(archived, { form_data: GOOD })).statusCode).toBe(404);
    const deleted = await createForm(t.app, a.auth);
    await t.app.inject({ method: 'DELETE', url: `/v1/forms/api/forms/${deleted}`, headers: a.auth });
    expect((await submit(deleted, { form_data: GOOD })).statusCode).toBe(404);
  });

  it('counts a repeated Idempotency-Key once and drops honeypot submissions', async () => {
    const id = await createForm(t.app, a.auth);
    for (let i = 0; i < 2; i++)
      expect((await submit(id, { form_data: GOOD }, { 'idempotency-key': 'k1' })).statusCode).toBe(201);
    expect((await submit(id, { form_data: { ...GOOD, _sp_website: 'http://spam' } })).statusCode).toBe(201);
    expect((await get(`/v1/forms/api/forms/${id}/submissions`)).json().total).toBe(1);
  });

  it('refuses a body over the size cap with 413', async () => {
    const id = await createForm(t.app, a.auth);
    expect((await submit(id, { form_data: { ...GOOD, message: 'x'.repeat(300_000) } })).statusCode).toBe(413);
  });

  it('checks uploads by their decoded bytes and size, and records signature evidence', async () => {
    const form_json = {
      body: [
        {
          type: 'FileUpload',
          id: 'f',
          properties: {
            field_name: 'scan',
            text: 'Scan',
            accept: ['image/png'],
            max_size_bytes: 1000,
            required: true,
          },
        },
        { type: 'Signature', id: 's', properties: { field_name: 'sig', text: 'Sign', required: true } },
      ],
    };
    const id = await createForm(t.app, a.auth, {
      form_json,
      signable: true,
      signature_confirmation_label: 'I confirm',
    });
    const pdfAsPng = await submit(id, {
      form_data: { scan: 'a.png', sig: 'Ada' },
      attachments: [{ name: 'a.png', content: Buffer.from('%PDF-1.4 x').toString('base64') }],
    });
    expect(pdfAsPng.json().fields).toEqual([{ field: 'scan', message: 'must be a file of type image/png' }]);
    const big = await submit(id, {
      form_data: { scan: 'a.png', sig: 'Ada' },
      attachments: [{ name: 'a.png', content: Buffer.concat([PNG, Buffer.alloc(2000)]).toString('base64') }],
    });
    expect(big.json().fields[0].message).toContain('at most 1000 bytes');
    const sig = `data:image/png;base64,${PNG.toString('base64')}`;
    const ok = await submit(id, {
      form_data: { scan: 'a.png', sig },
      attachments: [{ fileName: 'a.png', content: PNG.toString('base64') }],
    });
    expect(ok.statusCode).toBe(201);
    const rec = (await get(`/v1/forms/api/forms/${id}/submissions`)).json().data[0];
    expect(rec).toMatchObject({
      signed: true,
      attachments: [{ field_name: 'scan', name: 'a.png', content_type: 'image/png', size: PNG.length }],
    });
    const ev = await t.ctx.database.db
      .selectFrom('form_signatures')
      .selectAll()
      .where('submission_id', '=', rec.id)
      .executeTakeFirstOrThrow();
    expect(ev).toMatchObject({ label: 'I confirm', form_version: 1, field_name: 'sig' });
    expect(t.ctx.sealer.openText(ev.image, `form_signature:${rec.id}`)).toBe(sig);
    const pdf = await get(`/v1/forms/api/forms/${id}/submissions/${rec.id}/submission-pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('rate-limits submissions per IP', async () => {
    const limited = await createTestApp({ config: { formsSubmitPerMinute: 2 } });
    try {
      const b = await limited.createAccount();
      const id = await createForm(limited.app, b.auth);
      const codes = [];
      for (let i = 0; i < 3; i++)
        codes.push(
          (
            await limited.app.inject({
              method: 'POST',
              url: `/forms/api/forms/${id}/submissions`,
              payload: { form_data: GOOD },
            })
          ).statusCode,
        );
      expect(codes).toEqual([201, 201, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('exports, statistics and notifications', () => {
  it('exports CSV headed by labels with formula cells neutralised, for all and for one', async () => {
    const id = await createForm(t.app, a.auth);
    await submit(id, { form_data: { ...GOOD, name: '=HYPERLINK("x")', message: 'a "quote"' } });
    await submit(id, { form_data: GOOD });
    const all = await get(`/v1/forms/api/forms/${id}/submissions/submission-csv`);
    expect(all.headers['content-type']).toContain('text/csv');
    expect(all.body.startsWith('\ufeff')).toBe(false);
    const lines = all.body.trim().split('\r\n');
    expect(lines[0]).toBe('"Created At","Full name","Email","Topic","Message","I agree"');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`"'=HYPERLINK(""x"")","ada@example.org","appt","a ""quote""","Yes"`);
    const sid = (await get(`/v1/forms/api/forms/${id}/submissions?order=asc`)).json().data[1].id;
    const one = await get(`/v1/forms/api/forms/${id}/submissions/submission-csv/${sid}`);
    expect(one.headers['content-type']).toContain('text/csv');
    expect(one.body.trim().split('\r\n')).toHaveLength(2);
    expect((await get(`/v1/forms/api/forms/${id}/submission-csv/${sid}`)).body).toBe(one.body);
    expect((await get(`/v1/forms/api/forms/${id}/submissions/submission-csv/nope`)).statusCode).toBe(404);
  });

  it('starts the CSV with a byte order mark only when bom=true is asked for', async () => {
    const id = await createForm(t.app, a.auth);
    await submit(id, { form_data: GOOD });
    const all = await get(`/v1/forms/api/forms/${id}/submissions/submission-csv?bom=true`);
    expect(all.body.startsWith('\ufeff"Created At","Full name"')).toBe(true);
    const sid = (await get(`/v1/forms/api/forms/${id}/submissions`)).json().data[0].id;
    const one = await get(`/v1/forms/api/forms/${id}/submissions/submission-csv/${sid}?bom=true`);
    expect(one.body.startsWith('\ufeff"Created At"')).toBe(true);
    expect(one.body.split('\r\n')[1]).toMatch(/^"\d{4}-\d{2}-\d{2}T[\d:.]+Z","Ada Lovelace"/);
  });

  it('reports active forms, total submissions and the last 7 days from counters', async () => {
    const b = await t.createAccount();
    const one = await createForm(t.app, b.auth);
    await createForm(t.app, b.auth, { active: false });
    await submit(one, { form_data: GOOD });
    await submit(one, { form_data: GOOD });
    const stats = await t.app.inject({ method: 'GET', url: '/v1/forms/api/forms/stats', headers: b.auth });
    expect(stats.json()).toEqual({
      active_form_count: 1,
      total_submission_count: 2,
      submissions_last_7_days: 2,
    });
  });

  it('notifies the recipients with a link and no submitted data', async () => {
    const id = await createForm(t.app, a.auth, {
      recipient: 'desk@example.org, Office <office@example.org>',
    });
    await submit(id, { form_data: GOOD });
    const job = await t.ctx.database.db
      .selectFrom('jobs')
      .select('payload')
      .where('queue', '=', 'forms.submitted')
      .where('payload', 'like', `%${id}%`)
      .executeTakeFirstOrThrow();
    await handleSubmitted(t.ctx, JSON.parse(job.payload), addRespondentToList);
    const msg = await t.ctx.database.db
      .selectFrom('messages')
      .selectAll()
      .where('customer_id', '=', a.account.customer_id)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(msg.from_addr).toBe(`forms@${a.domain}`);
    const recipients = await t.ctx.database.db
      .selectFrom('message_recipients')
      .select('address')
      .where('message_id', '=', msg.id)
      .execute();
    expect(recipients.map((r) => r.address).sort()).toEqual(['desk@example.org', 'office@example.org']);
    const content = openContent(t.ctx.sealer, msg.id, msg.content!).text;
    expect(content).toContain(`/console/forms/${id}/responses/`);
    expect(content).not.toContain('/v1/');
    expect(content).not.toContain('Lovelace');

    // The same work row run again (a retry after a later step failed) does not mail the recipients twice.
    await handleSubmitted(t.ctx, JSON.parse(job.payload), addRespondentToList);
    const notifications = await t.ctx.database.db
      .selectFrom('messages')
      .select('id')
      .where('customer_id', '=', a.account.customer_id)
      .where('from_addr', '=', `forms@${a.domain}`)
      .execute();
    expect(notifications).toHaveLength(1);
  });
});
