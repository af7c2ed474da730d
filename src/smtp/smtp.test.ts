import net from 'node:net';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import { type TestApp } from '../test/harness.ts';
import { openCustomHeaders } from '../mail/content.ts';
import { heldCount } from '../mail/held-attachments.ts';
import { smtpTestBed } from './smtp.test-support.ts';

describe('SMTP submission', () => {
  const { t, acme, smtp } = smtpTestBed({ smtpMaxMessageBytes: 200_000, smtpRateLimitPerMinute: 1000 }, [
    { name: 'submission', port: 0, secure: false },
    { name: 'tls', port: 0, secure: true },
  ]);

  const transport = (opts: { secure?: boolean; pass?: string; user?: string; ignoreTLS?: boolean } = {}) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: opts.secure ? smtp.ports.tls : smtp.ports.submission,
      secure: opts.secure ?? false,
      requireTLS: !opts.secure && !opts.ignoreTLS,
      ignoreTLS: opts.ignoreTLS,
      auth: { user: opts.user ?? 'apikey', pass: opts.pass ?? acme.key },
      tls: { rejectUnauthorized: false },
    });

  const trackingIdOf = (response: string) => /sourceTrackingId ([0-9a-f-]{36})/.exec(response)?.[1];

  const receipt = async (id: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/v1/email/message_receipt?sourceTrackingId=${id}`,
        headers: acme.auth,
      })
    ).json();

  it('accepts a message over STARTTLS with AUTH and answers 250 with its sourceTrackingId, readable as a receipt', async () => {
    const info = await transport().sendMail({
      from: `Clinic <noreply@${acme.domain}>`,
      to: 'Patient <patient@example.org>',
      subject: 'Your results',
      text: 'They are ready.',
    });
    const id = trackingIdOf(info.response);
    expect(info.response).toMatch(/^250 /);
    expect(id).toBeDefined();
    const body = await receipt(id!);
    expect(body.sourceTrackingId).toBe(id);
    expect(body.data.message.message_deliveries).toEqual([
      expect.objectContaining({ recipient: 'patient@example.org' }),
    ]);
  });

  it('accepts a message over implicit TLS on the second listener', async () => {
    const info = await transport({ secure: true }).sendMail({
      from: `noreply@${acme.domain}`,
      to: 'a@example.org',
      subject: 'TLS',
      text: 'x',
    });
    expect(trackingIdOf(info.response)).toBeDefined();
  });

  it('refuses a wrong key with 535', async () => {
    await expect(
      transport({ pass: 'sp_wrong' }).sendMail({
        from: `noreply@${acme.domain}`,
        to: 'a@example.org',
        subject: 's',
        text: 'x',
      }),
    ).rejects.toMatchObject({
      responseCode: 535,
    });
  });

  it('refuses a user name other than apikey with 535', async () => {
    await expect(
      transport({ user: 'admin' }).sendMail({
        from: `noreply@${acme.domain}`,
        to: 'a@example.org',
        subject: 's',
        text: 'x',
      }),
    ).rejects.toMatchObject({
      responseCode: 535,
    });
  });

  it('refuses a key without the email scope with 535', async () => {
    const formsOnly = await t.createAccount({ scopes: 'forms' });
    await expect(
      transport({ pass: formsOnly.key }).sendMail({
        from: `noreply@${formsOnly.domain}`,
        to: 'a@example.org',
        subject: 's',
        text: 'x',
      }),
    ).rejects.toMatchObject({
      responseCode: 535,
    });
  });

  it('refuses AUTH before STARTTLS, even with a valid key', async () => {
    const lines = await plainSession(smtp.ports.submission!, [
      'EHLO client.example',
      'AUTH PLAIN ' + Buffer.from(`\0apikey\0${acme.key}`).toString('base64'),
    ]);
    expect(lines.ehlo).toMatch(/STARTTLS/);
    expect(lines.last).toMatch(/^538 .*STARTTLS/);
  });

  it('refuses mail without AUTH', async () => {
    const socket = tls.connect({ host: '127.0.0.1', port: smtp.ports.tls!, rejectUnauthorized: false });
    const replies = await converse(socket, ['EHLO client.example', `MAIL FROM:<noreply@${acme.domain}>`]);
    expect(replies.at(-1)).toMatch(/^530 /);
  });

  it('refuses a From on an unverified domain with 550 and a clear text, storing nothing', async () => {
    const before = await countMessages(t);
    const err = await transport()
      .sendMail({ from: 'someone@unverified.example', to: 'a@example.org', subject: 's', text: 'x' })
      .catch((e: { responseCode: number; response: string }) => e);
    expect(err).toMatchObject({ responseCode: 550 });
    expect((err as { response: string }).response).toContain('not a verified domain');
    expect(await countMessages(t)).toBe(before);
  });

  it('refuses an oversized message with 552, storing nothing', async () => {
    const before = await countMessages(t);
    await expect(
      transport().sendMail({
        from: `noreply@${acme.domain}`,
        to: 'a@example.org',
        subject: 'big',
        text: 'x'.repeat(300_000),
      }),
    ).rejects.toMatchObject({ responseCode: 552 });
    expect(await countMessages(t)).toBe(before);
  });

  it('keeps attachments, X- headers, Bcc from the envelope and the TLS opt-out header', async () => {
    const info = await transport().sendMail({
      from: `noreply@${acme.domain}`,
      to: 'patient@example.org',
      bcc: 'archive@example.org',
      subject: 'With attachment',
      text: 'See attached.',
      html: '<p>See <a href="https://example.org/portal">the portal</a></p>',
      headers: { 'X-Clinic-Id': 'clinic-4711', 'X-Sealpost-Allow-Non-TLS': 'true', Importance: 'high' },
      attachments: [
        { filename: 'result.pdf', content: Buffer.from('%PDF-1.4 fake'), contentType: 'application/pdf' },
      ],
    });
    const id = trackingIdOf(info.response)!;
    const message = await t.ctx.database.db
      .selectFrom('messages')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(message.allow_non_tls).toBe(1);
    expect(message.custom_headers).not.toContain('clinic-4711');
    expect(openCustomHeaders(t.ctx.sealer, id, message.custom_headers)).toEqual({
      'X-Clinic-Id': 'clinic-4711',
    });
    const recipients = await t.ctx.database.db
      .selectFrom('message_recipients')
      .select(['address', 'kind'])
      .where('message_id', '=', id)
      .orderBy('id')
      .execute();
    expect(recipients).toEqual([
      { address: 'patient@example.org', kind: 'to' },
      { address: 'archive@example.org', kind: 'bcc' },
    ]);
    const { openContent } = await import('../mail/content.ts');
    const content = openContent(t.ctx.sealer, id, message.content!);
    expect(content.attachments).toEqual([
      {
        fileName: 'result.pdf',
        contentType: 'application/pdf',
        content: Buffer.from('%PDF-1.4 fake').toString('base64'),
      },
    ]);
    expect(content.headers).toEqual({ 'X-Clinic-Id': 'clinic-4711' });
    expect((await receipt(id)).data.message.message_deliveries).toHaveLength(2);
    expect(heldCount()).toBe(0);
  });

  it('lets go of the attachments of a message it refuses', async () => {
    const before = await countMessages(t);
    await expect(
      transport().sendMail({
        from: 'noreply@not-verified.example',
        to: 'patient@example.org',
        subject: 'With attachment',
        text: 'See attached.',
        attachments: [
          { filename: 'scan.pdf', content: Buffer.alloc(50_000, 7), contentType: 'application/pdf' },
        ],
      }),
    ).rejects.toMatchObject({ responseCode: expect.any(Number) });
    expect(await countMessages(t)).toBe(before);
    expect(heldCount()).toBe(0);
  });

  it('leaves nothing behind when the client drops during DATA', async () => {
    const before = await countMessages(t);
    const socket = tls.connect({ host: '127.0.0.1', port: smtp.ports.tls!, rejectUnauthorized: false });
    const auth = Buffer.from(`\0apikey\0${acme.key}`).toString('base64');
    await converse(socket, [
      'EHLO client.example',
      `AUTH PLAIN ${auth}`,
      `MAIL FROM:<noreply@${acme.domain}>`,
      'RCPT TO:<a@example.org>',
      'DATA',
    ]);
    socket.write(`From: noreply@${acme.domain}\r\nTo: a@example.org\r\nSubject: cut\r\n\r\nhalf a mess`);
    socket.destroy();
    await new Promise((r) => setTimeout(r, 300));
    expect(await countMessages(t)).toBe(before);
  });
});

describe('SMTP rate limit', () => {
  const { t, smtp } = smtpTestBed(
    { smtpRateLimitPerMinute: 2 },
    [{ name: 'submission', port: 0, secure: false }],
    { account: false },
  );
  const transportOf = (key: string) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp.ports.submission,
      requireTLS: true,
      auth: { user: 'apikey', pass: key },
      tls: { rejectUnauthorized: false },
    });

  it('answers 451 with a retry text once a key has sent its messages for the minute', async () => {
    const a = await t.createAccount();
    const tr = transportOf(a.key);
    const mail = { from: `noreply@${a.domain}`, to: 'x@example.org', subject: 's', text: 'x' };
    await tr.sendMail(mail);
    await tr.sendMail(mail);
    const err = await tr.sendMail(mail).catch((e: { responseCode: number; response: string }) => e);
    expect(err).toMatchObject({ responseCode: 451 });
    expect((err as { response: string }).response).toMatch(/try again in \d+ s/);
  });

  it('counts recipients, not messages: one message to three takes the budget of three', async () => {
    const a = await t.createAccount();
    const tr = transportOf(a.key);
    const info = await tr.sendMail({
      from: `noreply@${a.domain}`,
      to: ['x@example.org', 'y@example.org', 'z@example.org'],
      subject: 'three',
      text: 'x',
    });
    expect(info.accepted).toEqual(['x@example.org', 'y@example.org']);
    expect(info.rejected).toEqual(['z@example.org']);
    expect((info as { rejectedErrors?: { response: string }[] }).rejectedErrors?.[0]?.response).toMatch(
      /^451 4\.7\.1 Rate limit exceeded .*try again in \d+ s/,
    );
    const stored = await t.ctx.database.db
      .selectFrom('messages')
      .where('customer_id', '=', a.account.customer_id)
      .select('recipient_count')
      .execute();
    expect(stored.map((m) => Number(m.recipient_count))).toEqual([2]);
    const err = await tr
      .sendMail({ from: `noreply@${a.domain}`, to: 'w@example.org', subject: 's', text: 'x' })
      .catch((e: { responseCode: number; response: string }) => e);
    expect(err).toMatchObject({ responseCode: 451 });
  });
});

async function countMessages(t: TestApp): Promise<number> {
  const r = await t.ctx.database.db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Sends commands one by one on a socket, collecting the final line of each reply (the greeting first). */
function converse(socket: net.Socket, commands: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const replies: string[] = [];
    let buffer = '';
    let next = 0;
    socket.on('error', reject);
    socket.on('data', (d) => {
      buffer += d.toString('utf8');
      let m: RegExpExecArray | null;
      while ((m = /^(\d{3}) .*\r\n/m.exec(buffer))) {
        const end = buffer.indexOf('\r\n', m.index) + 2;
        replies.push(buffer.slice(0, end).trimEnd().split('\r\n').pop()!);
        buffer = buffer.slice(end);
        if (next < commands.length) socket.write(commands[next++] + '\r\n');
        else return resolve(replies);
      }
    });
  });
}

/** A plain (no TLS) session: the EHLO reply in full, and the last reply. */
async function plainSession(port: number, commands: string[]): Promise<{ ehlo: string; last: string }> {
  const socket = net.connect(port, '127.0.0.1');
  let all = '';
  socket.on('data', (d) => (all += d.toString('utf8')));
  const replies = await converse(socket, commands);
  socket.destroy();
  const ehlo = all
    .split('\r\n')
    .filter((l) => l.startsWith('250'))
    .join('\n');
  return { ehlo, last: replies.at(-1)! };
}
