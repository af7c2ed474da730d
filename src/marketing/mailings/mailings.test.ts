import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { marketingClient, UUID_PATTERN } from '../marketing.test-support.ts';
import { makeMailing, rowCount } from './mailings.test-support.ts';

let t: TestApp;
let a: TestAccount;
let other: TestAccount;
let call: ReturnType<typeof marketingClient>;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  other = await t.createAccount();
  call = marketingClient(t, a);
});
afterAll(() => t.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const mailingCount = () => rowCount(t, 'campaign_mailings');

describe('POST /campaign_mailings', () => {
  it('creates a mailing and answers it whole in the envelope', async () => {
    const res = await call('POST', '/campaign_mailings', {
      campaign_mailing: {
        subject: '  March newsletter ',
        html_part: '<p>Hello {{first_name}}</p>',
        text_part: 'Hello {{first_name}}',
        template_type: 'quill',
        from_email: `news@${a.domain}`,
        from_name: 'The Clinic',
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      data: {
        id: expect.any(Number),
        uuid: expect.stringMatching(UUID_PATTERN),
        type: 'campaign_mailing',
        attributes: {
          subject: 'March newsletter',
          template_type: 'quill',
          created_at: expect.stringMatching(ISO),
          updated_at: expect.stringMatching(ISO),
          sent_count: 0,
          delivered_count: 0,
          viewed_count: 0,
          clicked_count: 0,
          bounced_count: 0,
          unsubscribed_count: 0,
          html_part: '<p>Hello {{first_name}}</p>',
          text_part: 'Hello {{first_name}}',
          from_email: `news@${a.domain}`,
          from_name: 'The Clinic',
          content_blocks: null,
        },
      },
    });
  });

  it('defaults the template type to html and leaves absent fields null', async () => {
    const res = await call('POST', '/campaign_mailings', {
      campaign_mailing: { subject: 'Plain one', text_part: 'Hi', html_part: null, from_name: '' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.attributes).toMatchObject({
      template_type: 'html',
      html_part: null,
      text_part: 'Hi',
      from_email: null,
      from_name: null,
    });
  });

  it('takes the sender from `from` written as Name <address>', async () => {
    const res = await call('POST', '/campaign_mailings', {
      campaign_mailing: { subject: 'From field', text_part: 'x', from: `Front Desk <desk@${a.domain}>` },
    });
    expect(res.json().data.attributes).toMatchObject({
      from_email: `desk@${a.domain}`,
      from_name: 'Front Desk',
    });
  });

  it('works under the bare prefix with a Bearer key', async () => {
    const res = await marketingClient(t, a, { bare: true, bearer: true })('POST', '/campaign_mailings', {
      campaign_mailing: { subject: 'Bare prefix', html_part: '<p>x</p>' },
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it.each([
    ['a missing campaign_mailing', {}, 'request.invalid'],
    ['a missing subject', { campaign_mailing: { html_part: '<p>x</p>' } }, 'request.invalid'],
    [
      'a blank subject',
      { campaign_mailing: { subject: '   ', html_part: '<p>x</p>' } },
      'marketing.mailing_invalid',
    ],
    [
      'a subject on two lines',
      { campaign_mailing: { subject: 'a\nb', html_part: '<p>x</p>' } },
      'marketing.mailing_invalid',
    ],
    [
      'a subject that is too long',
      { campaign_mailing: { subject: 'x'.repeat(501), html_part: '<p>x</p>' } },
      'marketing.mailing_invalid',
    ],
    ['neither part', { campaign_mailing: { subject: 'No content' } }, 'marketing.mailing_invalid'],
    [
      'both parts empty',
      { campaign_mailing: { subject: 'Empty parts', html_part: '', text_part: null } },
      'marketing.mailing_invalid',
    ],
    [
      'an invalid from_email',
      { campaign_mailing: { subject: 'Bad from', html_part: 'x', from_email: 'not-an-address' } },
      'marketing.mailing_invalid',
    ],
    [
      'a from_email with a name',
      { campaign_mailing: { subject: 'Bad from 2', html_part: 'x', from_email: `A <a@${'x'}.example>` } },
      'marketing.mailing_invalid',
    ],
    [
      'a from_name on two lines',
      { campaign_mailing: { subject: 'Bad name', html_part: 'x', from_name: 'a\r\nBcc: x' } },
      'marketing.mailing_invalid',
    ],
    [
      'an invalid template type',
      { campaign_mailing: { subject: 'Bad type', html_part: 'x', template_type: 'no such editor!' } },
      'marketing.mailing_invalid',
    ],
    [
      'a broken html_part',
      { campaign_mailing: { subject: 'Broken html', html_part: '<p>{{first_name</p>' } },
      'marketing.template_invalid',
    ],
    [
      'a broken text_part',
      { campaign_mailing: { subject: 'Broken text', text_part: '{{#if x}}open' } },
      'marketing.template_invalid',
    ],
    [
      'a broken subject',
      { campaign_mailing: { subject: 'Hi {{first_name', text_part: 'x' } },
      'marketing.template_invalid',
    ],
    [
      'an unknown helper',
      { campaign_mailing: { subject: 'Helper', text_part: '{{shout first_name}}' } },
      'marketing.template_invalid',
    ],
  ])('refuses %s with 400 and stores nothing', async (_what, body, code) => {
    const before = await mailingCount();
    const res = await call('POST', '/campaign_mailings', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error_code: code, errors: [{ code: 400 }] });
    expect(await mailingCount()).toBe(before);
  });

  it('names the broken field of a template', async () => {
    const res = await call('POST', '/campaign_mailings', {
      campaign_mailing: { subject: 'Broken', html_part: '<p>{{first_name</p>' },
    });
    expect(res.json()).toMatchObject({
      fields: [{ field: 'campaign_mailing.html_part' }],
      message: /campaign_mailing\.html_part.*Parse error/,
    });
  });

  it('refuses a subject the account already has, ignoring letter case and spaces, with 409', async () => {
    const id = await makeMailing(call, 'Spring sale');
    const before = await mailingCount();
    const res = await call('POST', '/campaign_mailings', {
      campaign_mailing: { subject: ' SPRING sale  ', html_part: 'x' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      error_code: 'marketing.subject_taken',
      campaign_mailing_id: Number(id),
    });
    expect(await mailingCount()).toBe(before);
  });

  it('allows the same subject in another account', async () => {
    await makeMailing(call, 'Shared subject');
    expect(await makeMailing(marketingClient(t, other), 'Shared subject')).toMatch(/^[1-9][0-9]*$/);
  });
});

describe('GET /campaign_mailings/<id>', () => {
  it('answers the mailing with its content', async () => {
    const id = await makeMailing(call, 'Readable', {
      text_part: 'Text',
      from_email: `a@${a.domain}`,
      from_name: 'A',
    });
    const res = await call('GET', `/campaign_mailings/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      id: Number(id),
      type: 'campaign_mailing',
      attributes: {
        subject: 'Readable',
        html_part: '<p>Hello</p>',
        text_part: 'Text',
        from_email: `a@${a.domain}`,
        from_name: 'A',
      },
    });
  });

  it.each(['999999', 'abc', '0'])('answers 404 for the id %s', async (id) => {
    const res = await call('GET', `/campaign_mailings/${id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error_code: 'marketing.mailing_not_found' });
  });

  it("answers 404 for another account's mailing", async () => {
    const id = await makeMailing(marketingClient(t, other), 'Not yours');
    expect((await call('GET', `/campaign_mailings/${id}`)).statusCode).toBe(404);
  });
});

describe('PATCH and PUT /campaign_mailings/<id>', () => {
  for (const method of ['PATCH', 'PUT'] as const) {
    it(`${method} changes only the fields sent`, async () => {
      const id = await makeMailing(call, `Before ${method}`, {
        text_part: 'Keep me',
        from_email: `x@${a.domain}`,
      });
      const created = (await call('GET', `/campaign_mailings/${id}`)).json().data.attributes;
      await new Promise((r) => setTimeout(r, 5));
      const res = await call(method, `/campaign_mailings/${id}`, {
        campaign_mailing: { subject: `After ${method}`, html_part: '<p>New</p>' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.attributes).toMatchObject({
        subject: `After ${method}`,
        html_part: '<p>New</p>',
        text_part: 'Keep me',
        from_email: `x@${a.domain}`,
        template_type: 'html',
        created_at: created.created_at,
      });
      expect(res.json().data.attributes.updated_at > created.updated_at).toBe(true);
      expect((await call('GET', `/campaign_mailings/${id}`)).json().data.attributes.subject).toBe(
        `After ${method}`,
      );
    });
  }

  it('keeps its own subject in another letter case', async () => {
    const id = await makeMailing(call, 'Case change');
    const res = await call('PATCH', `/campaign_mailings/${id}`, {
      campaign_mailing: { subject: 'CASE Change' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.attributes.subject).toBe('CASE Change');
  });

  it("refuses another mailing's subject with 409 and changes nothing", async () => {
    await makeMailing(call, 'Taken subject');
    const id = await makeMailing(call, 'Free subject');
    const res = await call('PATCH', `/campaign_mailings/${id}`, {
      campaign_mailing: { subject: 'taken subject', html_part: '<p>changed</p>' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error_code: 'marketing.subject_taken' });
    expect((await call('GET', `/campaign_mailings/${id}`)).json().data.attributes).toMatchObject({
      subject: 'Free subject',
      html_part: '<p>Hello</p>',
    });
  });

  it.each([
    ['a broken template', { html_part: '{{#each}}' }, 400, 'marketing.template_invalid'],
    ['an invalid from_email', { from_email: 'nobody' }, 400, 'marketing.mailing_invalid'],
    ['a blank subject', { subject: '  ' }, 400, 'marketing.mailing_invalid'],
  ])('refuses %s and changes nothing', async (_what, change, status, code) => {
    const id = await makeMailing(call, `Unchanged ${code} ${status} ${Object.keys(change)[0]}`);
    const before = (await call('GET', `/campaign_mailings/${id}`)).json();
    const res = await call('PATCH', `/campaign_mailings/${id}`, { campaign_mailing: change });
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json()).toMatchObject({ error_code: code });
    expect((await call('GET', `/campaign_mailings/${id}`)).json()).toEqual(before);
  });

  it('answers 404 for an unknown mailing', async () => {
    const res = await call('PATCH', '/campaign_mailings/424242', { campaign_mailing: { subject: 'x' } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error_code: 'marketing.mailing_not_found' });
  });

  it('refuses a change without campaign_mailing with 400', async () => {
    const id = await makeMailing(call, 'No change body');
    expect((await call('PATCH', `/campaign_mailings/${id}`, { subject: 'x' })).statusCode).toBe(400);
  });
});
