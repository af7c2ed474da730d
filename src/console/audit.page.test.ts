/** The audit trail page names users, forms, responses and messages with links, and shows times in the user's zone. */
import { describe, expect, it } from 'vitest';
import { record } from '../audit/audit.service.ts';
import { createForm } from '../forms/definitions/forms.service.ts';
import { requireList } from '../marketing/lists/lists.service.ts';
import { consoleTestBed, createTestUser } from './console.test-support.ts';

const { t, a, clients } = consoleTestBed(['owner'] as const);
const AT = Date.parse('2026-07-01T12:34:56Z');

/** Records entries about a user, a form, a response of it and a message, at a fixed time; returns their ids. */
async function entries() {
  const customerId = a.account.customer_id;
  const editor = await createTestUser(t, customerId, 'editor');
  const { id: formId } = await createForm(
    t.ctx,
    customerId,
    { title: 'Patient intake', form_json: { body: [] }, active: false },
    requireList,
  );
  const actor = { type: 'user' as const, id: editor.id };
  const db = t.ctx.database.db;
  const base = { accountId: customerId, actor, at: AT, ip: '198.51.100.7' };
  await record(db, { ...base, action: 'form.submissions_read', target: `form:${formId}` });
  await record(db, {
    ...base,
    action: 'form.submission_read',
    target: 'form_submission:sub-42',
    detail: { form_id: formId },
  });
  await record(db, { ...base, action: 'message.content_read', target: 'message:trk-99' });
  await record(db, { ...base, action: 'user.role', target: `user:${editor.id}` });
  return { editor, formId };
}

describe('the audit trail page', () => {
  it('links the user, the form, the response and the message instead of showing ids', async () => {
    const { editor, formId } = await entries();
    const page = await clients[0].get('/console/settings/audit?from=2026-07-01&to=2026-07-01');
    expect(page.statusCode).toBe(200);
    const body = page.body;
    expect(body).toContain(
      `<a href="/console/settings/users#user-${editor.id}" title="user:${editor.id}">${editor.email}</a>`,
    );
    expect(body).toContain(
      `<a href="/console/forms/${formId}" title="form:${formId}">form Patient intake</a>`,
    );
    expect(body).toContain(
      `<a href="/console/forms/${formId}/responses/sub-42" title="form_submission:sub-42">a response to Patient intake</a>`,
    );
    expect(body).toContain('<a href="/console/messages/trk-99" title="message:trk-99">message trk-99</a>');
    expect(body).toContain(`title="user:${editor.id}">user ${editor.email}</a>`);
    expect((await clients[0].get('/console/settings/users')).body).toContain(`<tr id="user-${editor.id}">`);
  });

  it('shows times in the zone the browser reported, with UTC on hover, and reads date filters in that zone', async () => {
    const get = (url: string, tz: string) =>
      t.app.inject({
        method: 'GET',
        url,
        headers: { cookie: `${clients[0].cookie}; sealpost_tz=${encodeURIComponent(tz)}` },
      });
    const tokyo = await get('/console/settings/audit?action=message.content_read', 'Asia/Tokyo');
    expect(tokyo.body).toContain('<th scope="col">When (Asia/Tokyo)</th>');
    expect(tokyo.body).toContain(
      '<time datetime="2026-07-01T12:34:56.000Z" title="2026-07-01 12:34:56 UTC">Wed, 1 Jul 2026, 21:34:56</time>',
    );
    // 12:34 UTC on 1 July is 02:34 on 2 July at UTC+14: a filter for 2 July finds it there, and not in UTC.
    const la = '/console/settings/audit?action=message.content_read&from=2026-07-02&to=2026-07-02';
    expect((await get(la, 'Pacific/Kiritimati')).body).toContain('message trk-99');
    expect((await get(la, 'UTC')).body).toContain('No entries match.');
    const utc = await get('/console/settings/audit?action=message.content_read', 'Not/AZone');
    expect(utc.body).toContain('<th scope="col">When (UTC)</th>');
    expect(utc.body).toContain('>Wed, 1 Jul 2026, 12:34:56</time>');
  });
});
