import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { addDomain } from '../accounts/domains.service.ts';
import { markDomainVerified } from '../accounts/domains.repository.ts';
import { createKey } from '../accounts/keys.service.ts';
import { openContent } from '../mail/content.ts';
import { message, postJson, recipientsOf, rowCounts } from './email.test-support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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

  const send = (data: unknown, url = '/v1/email/messages', headers: Record<string, string> = acme.auth) => postJson(t, url, headers, data);
  const sendMessage = (m: Record<string, unknown>) => send({ data: { message: m } });
  const stored = async (id: string) => {
    const row = await t.ctx.database.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    return { row, content: openContent(t.ctx.sealer, id, row.content!) };
  };

  /** Expects a 400 with `code`, naming `field` in the message, and no rows written. */
  async function refused(body: unknown, code: string, field: string | RegExp) {
    const before = await rowCounts(t);
    const res = await send(body);
    expect(res.statusCode, res.body).toBe(400);
    const json = res.json();
    expect(json.error_code).toBe(code);
    expect(json.message).toMatch(field);
    expect(json.errors).toEqual([{ code: 400, title: expect.any(String), details: expect.any(String), message: json.message }]);
    expect(await rowCounts(t)).toEqual(before);
    return json;
  }

  describe('accepting', () => {
    it.each([
      ['/v1/email/messages', 'Bearer'],
      ['/v1/email/messages', 'Token'],
      ['/v1/sendacme/messages', 'Bearer'],
      ['/v1/sendacme/messages', 'Token'],
      ['/v1/messages', 'Bearer'],
      ['/v1/messages', 'Token'],
    ])('accepts a message at %s with a %s header', async (url, scheme) => {
      const authorization = scheme === 'Bearer' ? `Bearer ${acme.key}` : `Token token=${acme.key}`;
      const res = await send({ data: { message: message(from) } }, url, { authorization });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ sourceTrackingId: expect.stringMatching(UUID), data: 'Service OK' });
    });

    it('refuses a key under another account name with 403', async () => {
      const res = await send({ data: { message: message(from) } }, '/v1/sendother/messages');
      expect(res.statusCode).toBe(403);
    });

    it('echoes custom headers in canonical case only when some were given', async () => {
      const res = await sendMessage(message(from, { headers: { subject: 'Hi', from, 'x-custom-header': 'value', 'X-OTHER-ONE': 'two' } }));
      expect(res.json()).toEqual({
        sourceTrackingId: expect.stringMatching(UUID),
        data: 'Service OK',
        customHeaders: { 'X-Custom-Header': 'value', 'X-Other-One': 'two' },
      });
      expect(Object.keys((await sendMessage(message(from))).json())).toEqual(['sourceTrackingId', 'data']);
    });

    it('commits the message, one recipient row per address (to, cc, bcc; duplicates once) and one work row each', async () => {
      const res = await sendMessage(
        message(from, {
          recipients: ['Pat Doe <pat@example.net>', 'lee@example.net'],
          cc: ['cc.name <cc@example.net>', 'PAT@example.net'],
          bcc: ['hidden@example.net', 'lee@example.net'],
        }),
      );
      expect(res.statusCode, res.body).toBe(200);
      const id = res.json().sourceTrackingId as string;
      const { row } = await stored(id);
      expect(row).toMatchObject({
        customer_id: acme.account.customer_id,
        from_addr: from,
        header_message_id: `<${id}@${acme.domain}>`,
        source: 'api',
        lane: 'transactional',
        recipient_count: 4,
        pending_count: 4,
      });
      const recipients = await recipientsOf(t, id);
      expect(recipients.map((r) => [r.kind, r.address, r.name, r.status, r.delivery_status])).toEqual([
        ['to', 'pat@example.net', 'Pat Doe', 'queued', 'processing'],
        ['to', 'lee@example.net', null, 'queued', 'processing'],
        ['cc', 'cc@example.net', 'cc.name', 'queued', 'processing'],
        ['bcc', 'hidden@example.net', null, 'queued', 'processing'],
      ]);
      const jobs = await t.ctx.database.db.selectFrom('jobs').selectAll().where('queue', '=', 'email.transactional').execute();
      const ids = jobs.map((j) => (JSON.parse(j.payload) as { recipientId: number }).recipientId);
      for (const r of recipients) expect(ids.filter((x) => x === r.id)).toHaveLength(1);
    });

    it('stores the content sealed, readable with the message id', async () => {
      const res = await sendMessage(
        message(from, {
          headers: { subject: 'Sealed', from: `Front Desk <${from}>`, 'reply-to': `Replies <replies@${acme.domain}>` },
          content: { 'text/plain': 'plain body', 'text/html': '<p>html body</p>' },
          attachments: [{ fileName: 'a.txt', contentType: 'text/plain', content: Buffer.from('attached').toString('base64') }],
        }),
      );
      const { row, content } = await stored(res.json().sourceTrackingId);
      expect(row.content).not.toContain('plain body');
      expect(content).toMatchObject({
        subject: 'Sealed',
        from: { address: from, name: 'Front Desk' },
        replyTo: { address: `replies@${acme.domain}`, name: 'Replies' },
        text: 'plain body',
        html: '<p>html body</p>',
        attachments: [{ fileName: 'a.txt', contentType: 'text/plain', content: Buffer.from('attached').toString('base64') }],
      });
    });

    it('keeps X- and List-Unsubscribe headers and drops every other extra header', async () => {
      const res = await sendMessage(
        message(from, {
          headers: {
            subject: 'Headers',
            from,
            'x-custom-header': 'kept',
            'List-Unsubscribe': '<mailto:unsubscribe@example.com?subject=unsubscribe>',
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
            bcc: 'sneaky@example.net',
            received: 'from somewhere',
            'content-type': 'text/evil',
          },
        }),
      );
      expect(res.statusCode, res.body).toBe(200);
      const { content } = await stored(res.json().sourceTrackingId);
      expect(content.headers).toEqual({
        'X-Custom-Header': 'kept',
        'List-Unsubscribe': '<mailto:unsubscribe@example.com?subject=unsubscribe>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      });
      expect(res.json().customHeaders).toEqual({ 'X-Custom-Header': 'kept' });
    });

    it('decodes text/html that arrives base64-encoded, and keeps raw HTML and text/plain as given', async () => {
      const html = '<html><body><h1>Hello wörld</h1></body></html>';
      const encoded = await sendMessage(message(from, { content: { 'text/html': Buffer.from(html).toString('base64') } }));
      expect((await stored(encoded.json().sourceTrackingId)).content.html).toBe(html);
      const plain = Buffer.from('not decoded').toString('base64');
      const raw = await sendMessage(message(from, { content: { 'text/html': html, 'text/plain': plain } }));
      const { content } = await stored(raw.json().sourceTrackingId);
      expect([content.html, content.text]).toEqual([html, plain]);
    });

    it('accepts attachment base64 wrapped every 60 characters with a trailing newline and without padding', async () => {
      const bytes = Buffer.from('x'.repeat(100) + 'ab');
      const wrapped = (bytes.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n';
      const unpadded = Buffer.from('ab').toString('base64').replace(/=+$/, '');
      const res = await sendMessage(
        message(from, {
          attachments: [
            { fileName: 'wrapped.bin', contentType: 'application/octet-stream', content: wrapped },
            { fileName: 'unpadded.txt', contentType: 'text/plain', content: unpadded },
          ],
        }),
      );
      expect(res.statusCode, res.body).toBe(200);
      const { content } = await stored(res.json().sourceTrackingId);
      expect(content.attachments.map((a) => Buffer.from(a.content, 'base64').toString())).toEqual([bytes.toString(), 'ab']);
    });

    it('treats "reply-to": "" as absent', async () => {
      const res = await sendMessage(message(from, { headers: { subject: 'Hi', from, 'reply-to': '' } }));
      expect(res.statusCode, res.body).toBe(200);
      expect((await stored(res.json().sourceTrackingId)).content.replyTo).toBeUndefined();
    });

    it('treats optional fields sent as null, "", [] or {} as absent', async () => {
      const res = await send({
        data: {
          message: {
            recipients: ['rcpt@example.net'],
            cc: [],
            bcc: null,
            headers: { subject: 'Hi', from, 'reply-to': null, 'x-empty': '' },
            content: { 'text/plain': 'body', 'text/html': null },
            attachments: [],
            allowNonTLS: null,
            forceSecureNotification: '',
          },
          override_open_tracking: null,
          unsubscribe_url: '',
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().customHeaders).toBeUndefined();
      const { row, content } = await stored(res.json().sourceTrackingId);
      expect(content.html).toBeUndefined();
      expect([row.allow_non_tls, row.force_secure, row.recipient_count]).toEqual([0, 0, 1]);
    });

    it('records allowNonTLS, forceSecureNotification and the tracking overrides', async () => {
      const res = await send({
        data: {
          message: message(from, {
            allowNonTLS: true,
            forceSecureNotification: true,
            content: { 'text/html': '<a href="https://e.org">x</a>' },
          }),
          override_open_tracking: false,
          override_link_tracking: false,
        },
      });
      const { row } = await stored(res.json().sourceTrackingId);
      expect([row.allow_non_tls, row.force_secure, row.open_tracking, row.link_tracking]).toEqual([1, 1, 0, 0]);
      const tracked = await sendMessage(message(from, { content: { 'text/html': '<a href="https://e.org">x</a>' } }));
      const { row: on } = await stored(tracked.json().sourceTrackingId);
      expect([on.open_tracking, on.link_tracking]).toEqual([1, 1]);
    });
  });

  describe('refusing with 400 and storing nothing', () => {
    it('refuses a From domain that is not a domain of the account', async () => {
      await refused({ data: { message: message('desk@unknown.example') } }, 'email.unverified_from', /data\.message\.headers\.from/);
    });

    it('refuses a From domain verified by another account', async () => {
      await refused({ data: { message: message(`desk@${other.domain}`) } }, 'email.unverified_from', /not a verified domain/);
    });

    it('refuses a From domain of the account that is not verified yet', async () => {
      await addDomain(t.ctx.database.db, t.ctx.sealer, acme.account.customer_id, 'pending.sendacme.example');
      await refused({ data: { message: message('desk@pending.sendacme.example') } }, 'email.unverified_from', /headers\.from/);
    });

    it('accepts a From domain at once when it is verified right after a refused send', async () => {
      const accountKey = await createKey(t.ctx.database.db, acme.account.customer_id, { scopes: 'email' });
      const headers = { authorization: `Bearer ${accountKey.key}` };
      const domain = await addDomain(t.ctx.database.db, t.ctx.sealer, acme.account.customer_id, 'later.sendacme.example');
      const body = { data: { message: message('desk@later.sendacme.example') } };
      expect((await send(body, '/v1/email/messages', headers)).json().error_code).toBe('email.unverified_from');
      await markDomainVerified(t.ctx.database.db, domain.id, Date.now());
      expect((await send(body, '/v1/email/messages', headers)).statusCode).toBe(200);
    });

    it('refuses a verified domain of the account other than the one the key belongs to', async () => {
      await addDomain(t.ctx.database.db, t.ctx.sealer, acme.account.customer_id, 'second.sendacme.example', { verified: true });
      await refused({ data: { message: message('desk@second.sendacme.example') } }, 'email.unverified_from', /may only send from/);
    });

    it.each([
      ['absent', { from: 'X' }],
      ['null', { from: 'X', subject: null }],
      ['empty', { from: 'X', subject: '' }],
    ])('refuses a subject that is %s', async (_, headers) => {
      const m = message(from, { headers: { ...headers, from } });
      await refused({ data: { message: m } }, 'request.invalid', /data\.message\.headers\.subject is required/);
    });

    it.each([
      ['empty', []],
      ['absent', undefined],
      ['null', null],
    ])('refuses recipients that are %s', async (_, recipients) => {
      await refused({ data: { message: message(from, { recipients }) } }, 'request.invalid', /data\.message\.recipients/);
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
      await refused({ data: { message: message(from, { content }) } }, 'request.invalid', /data\.message\.content\.text\/plain/);
    });

    it('refuses invalid base64 in an attachment', async () => {
      const attachments = [
        { fileName: 'ok.txt', contentType: 'text/plain', content: 'aGk=' },
        { fileName: 'bad.txt', contentType: 'text/plain', content: 'not*base64!' },
      ];
      await refused({ data: { message: message(from, { attachments }) } }, 'request.invalid', /data\.message\.attachments\[1\]\.content/);
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
      await refused({ data: { message: message(from, { content }) } }, 'request.invalid', /data\.message\.content/);
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
      await refused({ data: { message: message(from, { headers }) } }, 'request.invalid', /headers\.x-tag must not contain line breaks/);
    });

    it('refuses an X- header whose name holds characters a header name cannot', async () => {
      const headers = { subject: 'Hi', from, 'x-bad name': 'v' };
      await refused({ data: { message: message(from, { headers }) } }, 'request.invalid', /x-bad name is not a valid header name/);
    });

    it('refuses a line break in the From or reply-to address and in an attachment name', async () => {
      await refused({ data: { message: message(`desk@${acme.domain}\r\nBcc: v@example.net`) } }, 'request.invalid', /headers\.from/);
      const replyTo = { subject: 'Hi', from, 'reply-to': 'a@example.net\nBcc: v@example.net' };
      await refused({ data: { message: message(from, { headers: replyTo }) } }, 'request.invalid', /reply-to/);
      const attachments = [{ fileName: 'a.txt\r\nX: y', contentType: 'text/plain', content: 'aGk=' }];
      await refused({ data: { message: message(from, { attachments }) } }, 'request.invalid', /fileName must not contain line breaks/);
    });

    it('refuses a body without data, an empty body and malformed JSON', async () => {
      await refused({}, 'request.invalid', /data is required/);
      await refused('', 'request.invalid', /data|body/);
      await refused('{"data": {', 'request.invalid', /JSON/i);
    });
  });
});
