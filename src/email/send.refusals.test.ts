/** POST /messages refusing bad input with 400 and storing nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BY, createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { addDomain } from '../accounts/domains.service.ts';
import { markDomainVerified } from '../accounts/domains.repository.ts';
import { createKey } from '../accounts/keys.service.ts';
import { message, postJson, rowCounts } from './email.test-support.ts';

describe('POST /messages', () => {
  let t: TestApp;
  let acme: TestAccount;
  let other: TestAccount;
  let from: string;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createAccount({ username: 'sendacme' });
    other = await t.createAccount({ username: 'sendother' });
    from = `desk@${acme.domain}`;
  });
  afterAll(() => t.close());

  const send = (data: unknown, url = '/v1/email/messages', headers: Record<string, string> = acme.auth) =>
    postJson(t, url, headers, data);

  /** Expects a 400 with `code`, naming `field` in the message, and no rows written. */
  async function refused(body: unknown, code: string, field: string | RegExp) {
    const before = await rowCounts(t);
    const res = await send(body);
    expect(res.statusCode, res.body).toBe(400);
    const json = res.json();
    expect(json.error_code).toBe(code);
    expect(json.message).toMatch(field);
    expect(json.errors).toEqual([
      { code: 400, title: expect.any(String), details: expect.any(String), message: json.message },
    ]);
    expect(await rowCounts(t)).toEqual(before);
    return json;
  }

  describe('refusing with 400 and storing nothing', () => {
    it('refuses a From domain that is not a domain of the account', async () => {
      await refused(
        { data: { message: message('desk@unknown.example') } },
        'email.unverified_from',
        /data\.message\.headers\.from/,
      );
    });

    it('refuses a From domain verified by another account', async () => {
      await refused(
        { data: { message: message(`desk@${other.domain}`) } },
        'email.unverified_from',
        /not a verified domain/,
      );
    });

    it('refuses a From domain of the account that is not verified yet', async () => {
      await addDomain(
        t.ctx.database.db,
        t.ctx.sealer,
        acme.account.customer_id,
        'pending.sendacme.example',
        TEST_BY,
      );
      await refused(
        { data: { message: message('desk@pending.sendacme.example') } },
        'email.unverified_from',
        /headers\.from/,
      );
    });

    it('accepts a From domain at once when it is verified right after a refused send', async () => {
      const accountKey = await createKey(t.ctx.database.db, acme.account.customer_id, {
        by: TEST_BY,
        scopes: 'email',
      });
      const headers = { authorization: `Bearer ${accountKey.key}` };
      const domain = await addDomain(
        t.ctx.database.db,
        t.ctx.sealer,
        acme.account.customer_id,
        'later.sendacme.example',
        TEST_BY,
      );
      const body = { data: { message: message('desk@later.sendacme.example') } };
      expect((await send(body, '/v1/email/messages', headers)).json().error_code).toBe(
        'email.unverified_from',
      );
      await markDomainVerified(t.ctx.database.db, domain.id, Date.now());
      expect((await send(body, '/v1/email/messages', headers)).statusCode).toBe(200);
    });

    it('refuses a verified domain of the account other than the one the key belongs to', async () => {
      await addDomain(
        t.ctx.database.db,
        t.ctx.sealer,
        acme.account.customer_id,
        'second.sendacme.example',
        TEST_BY,
        {
          verified: true,
        },
      );
      await refused(
        { data: { message: message('desk@second.sendacme.example') } },
        'email.unverified_from',
        /may only send from/,
      );
    });

    it.each([
      ['absent', { from: 'X' }],
      ['null', { from: 'X', subject: null }],
      ['empty', { from: 'X', subject: '' }],
    ])('refuses a subject that is %s', async (_, headers) => {
      const m = message(from, { headers: { ...headers, from } });
      await refused(
        { data: { message: m } },
        'request.invalid',
        /data\.message\.headers\.subject is required/,
      );
    });

    it.each([
      ['empty', []],
      ['absent', undefined],
      ['null', null],
    ])('refuses recipients that are %s', async (_, recipients) => {
      await refused(
        { data: { message: message(from, { recipients }) } },
        'request.invalid',
        /data\.message\.recipients/,
      );
    });

    it('refuses a recipient that is not an address', async () => {
      await refused(
        { data: { message: message(from, { recipients: ['ok@example.net', 'not an address'] }) } },
        'request.invalid',
        /recipients\[1\]/,
      );
    });

    it('names fields inside arrays and keys holding a slash as clients write them', async () => {
      await refused(
        { data: { message: message(from, { recipients: ['a@example.net', 5] }) } },
        'request.invalid',
        /data\.message\.recipients\[1\]/,
      );
      const content = { 'text/plain': { nested: true } };
      await refused(
        { data: { message: message(from, { content }) } },
        'request.invalid',
        /data\.message\.content\.text\/plain/,
      );
    });

    it('refuses invalid base64 in an attachment', async () => {
      const attachments = [
        { fileName: 'ok.txt', contentType: 'text/plain', content: 'aGk=' },
        { fileName: 'bad.txt', contentType: 'text/plain', content: 'not*base64!' },
      ];
      await refused(
        { data: { message: message(from, { attachments }) } },
        'request.invalid',
        /data\.message\.attachments\[1\]\.content/,
      );
    });

    it('refuses base64 whose length cannot be valid', async () => {
      const attachments = [{ fileName: 'bad.txt', contentType: 'text/plain', content: 'aGkhY' }];
      await refused(
        { data: { message: message(from, { attachments }) } },
        'request.invalid',
        /attachments\[0\]\.content is not valid base64/,
      );
    });

    it.each([
      ['{}', {}],
      ['both null', { 'text/plain': null, 'text/html': null }],
      ['both empty', { 'text/plain': '', 'text/html': '' }],
      ['absent', undefined],
    ])('refuses content that is %s', async (_, content) => {
      await refused(
        { data: { message: message(from, { content }) } },
        'request.invalid',
        /data\.message\.content/,
      );
    });

    it('refuses a line break in the subject', async () => {
      for (const subject of ['Hi\r\nBcc: victim@example.net', 'Hi\nX-Injected: 1', 'Hi\rthere'])
        await refused(
          { data: { message: message(from, { headers: { subject, from } }) } },
          'request.invalid',
          /subject must not contain line breaks/,
        );
    });

    it('refuses a line break in an X- header', async () => {
      const headers = { subject: 'Hi', from, 'x-tag': 'a\r\nBcc: victim@example.net' };
      await refused(
        { data: { message: message(from, { headers }) } },
        'request.invalid',
        /headers\.x-tag must not contain line breaks/,
      );
    });

    it('refuses an X- header whose name holds characters a header name cannot', async () => {
      const headers = { subject: 'Hi', from, 'x-bad name': 'v' };
      await refused(
        { data: { message: message(from, { headers }) } },
        'request.invalid',
        /x-bad name is not a valid header name/,
      );
    });

    it('refuses a line break in the From or reply-to address and in an attachment name', async () => {
      await refused(
        { data: { message: message(`desk@${acme.domain}\r\nBcc: v@example.net`) } },
        'request.invalid',
        /headers\.from/,
      );
      const replyTo = { subject: 'Hi', from, 'reply-to': 'a@example.net\nBcc: v@example.net' };
      await refused(
        { data: { message: message(from, { headers: replyTo }) } },
        'request.invalid',
        /reply-to/,
      );
      const attachments = [{ fileName: 'a.txt\r\nX: y', contentType: 'text/plain', content: 'aGk=' }];
      await refused(
        { data: { message: message(from, { attachments }) } },
        'request.invalid',
        /fileName must not contain line breaks/,
      );
    });

    it('refuses a body without data, an empty body and malformed JSON', async () => {
      await refused({}, 'request.invalid', /data is required/);
      await refused('', 'request.invalid', /data|body/);
      await refused('{"data": {', 'request.invalid', /JSON/i);
    });
  });
});
