import net from 'node:net';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import { readData } from './smtp.server.ts';
import { smtpTestBed } from './smtp.test-support.ts';

describe('SMTP limits', () => {
  const { t, acme, smtp } = smtpTestBed(
    { maxRecipientsPerMessage: 3, smtpMaxMimeParts: 3, authFailuresPerWindow: 4 },
    [
      { name: 'submission', port: 0, secure: false },
      { name: 'port25', port: 0, secure: false },
    ],
  );

  const transport = (pass = acme.key) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp.ports.submission,
      requireTLS: true,
      auth: { user: 'apikey', pass },
      tls: { rejectUnauthorized: false },
    });

  it('does not advertise AUTH before STARTTLS, and does after it', async () => {
    const ehlo = await ehloLines(smtp.ports.submission!);
    expect(ehlo).toMatch(/STARTTLS/);
    expect(ehlo).not.toMatch(/AUTH/);
    // nodemailer only authenticates when the EHLO after STARTTLS lists AUTH PLAIN or LOGIN.
    const info = await transport().sendMail({
      from: `noreply@${acme.domain}`,
      to: 'a@example.org',
      subject: 's',
      text: 'x',
    });
    expect(info.response).toMatch(/^250 /);
  });

  it('does not advertise AUTH before STARTTLS on port 25 either, and refuses AUTH sent before it', async () => {
    const ehlo = await ehloLines(smtp.ports.port25!);
    expect(ehlo).toMatch(/STARTTLS/);
    expect(ehlo).not.toMatch(/AUTH/);
    for (const port of [smtp.ports.port25!, smtp.ports.submission!]) {
      const plain = Buffer.from(`\0apikey\0${acme.key}`).toString('base64');
      expect(await replyAfterEhlo(port, `AUTH PLAIN ${plain}`)).toMatch(/^5\d\d /);
    }
  });

  it('answers 452 to the recipient past the cap, and delivers the message to those accepted', async () => {
    const info = await transport().sendMail({
      from: `noreply@${acme.domain}`,
      to: ['a@example.org', 'b@example.org', 'c@example.org', 'd@example.org'],
      subject: 'many',
      text: 'x',
    });
    expect(info.accepted).toHaveLength(3);
    expect(info.rejected).toEqual(['d@example.org']);
    expect((info as { rejectedErrors?: { response: string }[] }).rejectedErrors?.[0]?.response).toMatch(
      /^452 4\.5\.3 .*at most 3/,
    );
  });

  it('refuses a message with more MIME parts than the limit permanently with 554', async () => {
    const err = await transport()
      .sendMail({
        from: `noreply@${acme.domain}`,
        to: 'a@example.org',
        subject: 'parts',
        text: 'x',
        attachments: [1, 2, 3, 4, 5].map((i) => ({ filename: `f${i}.txt`, content: `part ${i}` })),
      })
      .catch((e: { responseCode: number; response: string }) => e);
    expect(err).toMatchObject({ responseCode: 554 });
    expect((err as { response: string }).response).toMatch(/too many MIME parts/);
  });

  it('refuses further failed AUTH from an address with 421 past the limit, still accepting a valid key from it', async () => {
    const send = (pass: string) =>
      transport(pass).sendMail({
        from: `noreply@${acme.domain}`,
        to: 'a@example.org',
        subject: 's',
        text: 'x',
      });
    for (let i = 0; i < 4; i++) await expect(send('sp_wrong')).rejects.toMatchObject({ responseCode: 535 });
    const err = await send('sp_wrong').catch((e: { responseCode: number; response: string }) => e);
    expect(err).toMatchObject({ responseCode: 421 });
    expect((await send(acme.key)).response).toMatch(/^250 /);
    const metric = await t.ctx.authThrottle.metric.get();
    expect(metric.values.find((v) => v.labels.door === 'smtp')?.value).toBe(5);
  });
});

describe('SMTP DATA past the size limit', () => {
  it('keeps nothing of the message once the limit is passed, reading the rest to the end', async () => {
    const stream = Object.assign(new PassThrough(), { sizeExceeded: false });
    const result = readData(stream as never);
    stream.write(Buffer.alloc(1000, 'a'));
    stream.sizeExceeded = true;
    for (let i = 0; i < 100; i++) stream.write(Buffer.alloc(10_000, 'b'));
    stream.end();
    const kept = await result;
    expect(kept.sizeExceeded).toBe(true);
    expect(kept.bytesKept).toBe(0);
    expect(kept.raw).toBeNull();
  });
});

/** The EHLO reply of a plain connection. */
async function ehloLines(port: number): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  let all = '';
  await new Promise<void>((resolve) => {
    socket.on('data', (d) => {
      all += d.toString('utf8');
      if (all.includes('220 ') && !all.includes('EHLO-SENT')) {
        all += 'EHLO-SENT';
        socket.write('EHLO client.example\r\n');
      }
      if (/\r\n250 [^\r\n]*\r\n$/.test(all)) resolve();
    });
  });
  socket.destroy();
  return all;
}

/** The reply to `command` sent right after EHLO, before any STARTTLS. */
async function replyAfterEhlo(port: number, command: string): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  let all = '';
  let stage = 0;
  const reply = await new Promise<string>((resolve) => {
    socket.on('data', (d) => {
      all += d.toString('utf8');
      if (stage === 0 && all.includes('220 ')) {
        stage = 1;
        all = '';
        socket.write('EHLO client.example\r\n');
      } else if (stage === 1 && /(^|\r\n)250 [^\r\n]*\r\n$/.test(all)) {
        stage = 2;
        all = '';
        socket.write(`${command}\r\n`);
      } else if (stage === 2 && /\r\n$/.test(all)) resolve(all.trim());
    });
  });
  socket.destroy();
  return reply;
}
