/** The API writes the audit trail with the key as the actor: protected content reads and exports, webhook changes; failures write nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { createForm, GOOD } from '../forms/forms.test-support.ts';
import { FAST } from '../webhooks/webhooks.test-support.ts';
import { searchAudit } from './audit.service.ts';

let t: TestApp;
let a: TestAccount;

beforeAll(async () => {
  t = await createTestApp({ config: { ...FAST, formsSubmitPerMinute: 0 } });
  a = await t.createAccount();
});
afterAll(async () => t?.close());

const entries = (action: string) =>
  searchAudit(t.ctx.database.db, { customerId: a.account.customer_id, action, limit: 100 });

describe('API audit entries', () => {
  it('records who listed and exported form submissions, from where, naming the submissions', async () => {
    const id = await createForm(t.app, a.auth);
    await t.app.inject({
      method: 'POST',
      url: `/v1/forms/api/forms/${id}/submissions`,
      payload: { form_data: GOOD },
    });
    const list = await t.app.inject({
      method: 'GET',
      url: `/v1/forms/api/forms/${id}/submissions`,
      headers: a.auth,
      remoteAddress: '198.51.100.7',
    });
    const submissionId = list.json().data[0].id as string;
    const [read] = await entries('form.submissions_read');
    expect(read).toMatchObject({
      actor_type: 'key',
      actor_id: a.keyId,
      target: `form:${id}`,
      ip: '198.51.100.7',
    });
    expect(read!.detail.items).toEqual([submissionId]);

    await t.app.inject({
      method: 'GET',
      url: `/v1/forms/api/forms/${id}/submissions/submission-csv`,
      headers: a.auth,
    });
    await t.app.inject({
      method: 'GET',
      url: `/v1/forms/api/forms/${id}/submissions/${submissionId}/submission-pdf`,
      headers: a.auth,
    });
    expect((await entries('form.submissions_export')).map((e) => e.target)).toEqual([`form:${id}`]);
    expect((await entries('form.submission_export')).map((e) => e.target)).toEqual([
      `submission:${submissionId}`,
    ]);
  });

  it('writes nothing for a refused request', async () => {
    const before = (await entries('form.submissions_read')).length;
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/forms/api/forms/nope/submissions',
      headers: a.auth,
    });
    expect(res.statusCode).toBe(404);
    expect((await entries('form.submissions_read')).length).toBe(before);
  });

  it('records captured mail reads and webhook endpoint changes', async () => {
    await t.app.inject({ method: 'GET', url: '/v1/email/captured_messages', headers: a.auth });
    expect((await entries('captured.read'))[0]).toMatchObject({
      target: `account:${a.account.customer_id}`,
      actor_id: a.keyId,
    });
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/email/webhook_endpoints',
      headers: a.auth,
      payload: { target_url: 'http://127.0.0.1:8999/in', events: ['api_mail_log_delivered'] },
    });
    const hook = created.json().id as string;
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/email/webhook_endpoints/${hook}`,
      headers: a.auth,
      payload: { events: ['api_mail_log_opened'] },
    });
    await t.app.inject({ method: 'DELETE', url: `/v1/email/webhook_endpoints/${hook}`, headers: a.auth });
    for (const action of ['webhook.create', 'webhook.update', 'webhook.delete'])
      expect(
        (await entries(action)).map((e) => e.target),
        action,
      ).toEqual([`webhook:${hook}`]);
    expect((await entries('webhook.update'))[0]!.detail.fields).toEqual(['events']);
  });
});
