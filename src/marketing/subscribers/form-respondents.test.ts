import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { createForm, GOOD } from '../../forms/forms.test-support.ts';
import { handleSubmitted } from '../../forms/forms.worker.ts';
import { addRespondentToList } from './form-respondents.ts';
import { countOf, makeList, marketingClient } from '../marketing.test-support.ts';

let t: TestApp;
let a: TestAccount;
let call: ReturnType<typeof marketingClient>;
beforeAll(async () => {
  t = await createTestApp({ config: { formsSubmitPerMinute: 0 } });
  a = await t.createAccount();
  call = marketingClient(t, a);
});
afterAll(() => t.close());

/** Submits the contact form and runs the work that follows, as the worker would. */
async function submitAndProcess(formId: string, formData: Record<string, unknown>): Promise<void> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/forms/api/forms/${formId}/submissions`,
    payload: { form_data: formData },
  });
  expect(res.statusCode).toBe(201);
  const job = await t.ctx.database.db
    .selectFrom('jobs')
    .select('payload')
    .where('queue', '=', 'forms.submitted')
    .where('payload', 'like', `%${formId}%`)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  await handleSubmitted(t.ctx, JSON.parse(job.payload), addRespondentToList);
}

describe('marketing form respondents', () => {
  it("become subscribers of the form's list, once per email", async () => {
    const list = await makeList(call, 'Sign-ups');
    const formId = await createForm(t.app, a.auth, { type: 'marketing_form', subscription_list_id: list });
    await submitAndProcess(formId, GOOD);
    await submitAndProcess(formId, { ...GOOD, email: 'ADA@example.org' });
    const members = (await call('GET', `/subscribers?subscription_list_id=${list}`)).json().data;
    expect(members.map((s: { attributes: { email: string } }) => s.attributes.email)).toEqual([GOOD.email]);
    expect(await countOf(call, list)).toBe(1);
    const lists = (await call('GET', '/subscription_lists')).json().data;
    expect(lists.find((l: { id: number }) => String(l.id) === list).attributes.form_id).toBe(formId);
  });

  it('are skipped without an error when the list was deleted', async () => {
    const list = await makeList(call, 'Removed');
    const formId = await createForm(t.app, a.auth, { type: 'marketing_form', subscription_list_id: list });
    await call('DELETE', `/subscription_lists/${list}`);
    await submitAndProcess(formId, { ...GOOD, email: 'orphan@example.org' });
    expect((await call('GET', '/subscribers?search=orphan')).json().data).toEqual([]);
  });
});
