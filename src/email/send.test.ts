import { beforeAll, describe, expect, it } from 'vitest';
import { emailTestBed, message, postJson, recipientsOf, storedMessage } from './email.test-support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /messages', () => {
  const { t, acme } = emailTestBed('sendacme', 'sendother');
  let from: string;

  beforeAll(() => {
    from = `desk@${acme.domain}`;
  });

  const send = (data: unknown, url = '/v1/email/messages', headers: Record<string, string> = acme.auth) =>
    postJson(t, url, headers, data);
  const sendMessage = (m: Record<string, unknown>) => send({ data: { message: m } });
  const stored = (id: string) => storedMessage(t, id);

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
      const res = await sendMessage(
        message(from, { headers: { subject: 'Hi', from, 'x-custom-header': 'value', 'X-OTHER-ONE': 'two' } }),
      );
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
      const jobs = await t.ctx.database.db
        .selectFrom('jobs')
        .selectAll()
        .where('queue', '=', 'email.transactional')
        .execute();
      const ids = jobs.map((j) => (JSON.parse(j.payload) as { recipientId: number }).recipientId);
      for (const r of recipients) expect(ids.filter((x) => x === r.id)).toHaveLength(1);
    });

    it('stores the content sealed, readable with the message id', async () => {
      const res = await sendMessage(
        message(from, {
          headers: {
            subject: 'Sealed',
            from: `Front Desk <${from}>`,
            'reply-to': `Replies <replies@${acme.domain}>`,
          },
          content: { 'text/plain': 'plain body', 'text/html': '<p>html body</p>' },
          attachments: [
            {
              fileName: 'a.txt',
              contentType: 'text/plain',
              content: Buffer.from('attached').toString('base64'),
            },
          ],
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
        attachments: [
          {
            fileName: 'a.txt',
            contentType: 'text/plain',
            content: Buffer.from('attached').toString('base64'),
          },
        ],
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
      const encoded = await sendMessage(
        message(from, { content: { 'text/html': Buffer.from(html).toString('base64') } }),
      );
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
      expect(content.attachments.map((a) => Buffer.from(a.content, 'base64').toString())).toEqual([
        bytes.toString(),
        'ab',
      ]);
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
      expect([row.allow_non_tls, row.force_secure, row.open_tracking, row.link_tracking]).toEqual([
        1, 1, 0, 0,
      ]);
      const tracked = await sendMessage(
        message(from, { content: { 'text/html': '<a href="https://e.org">x</a>' } }),
      );
      const { row: on } = await stored(tracked.json().sourceTrackingId);
      expect([on.open_tracking, on.link_tracking]).toEqual([1, 1]);
    });
  });
});
