import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import { smtpTestBed } from '../smtp/smtp.test-support.ts';
import type { TestAccount } from '../test/harness.ts';

const LIMIT = 4000;

const send = (a: TestAccount, text: string) => ({
  data: {
    message: {
      recipients: ['a@example.org'],
      headers: { from: `noreply@${a.domain}`, subject: 'Hi' },
      content: { 'text/plain': text },
    },
  },
});

/** Starts a send whose declared body is `length` bytes and sends only its beginning: its bytes are held until `end`. */
async function heldRequest(port: number, a: TestAccount, length: number): Promise<{ end(): Promise<void> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(
    `POST /v1/email/messages HTTP/1.1\r\nhost: localhost\r\n${a.auth.authorization ? `authorization: ${a.auth.authorization}\r\n` : ''}` +
      `content-type: application/json\r\ncontent-length: ${length}\r\n\r\n{"data": `,
  );
  // Wait until the server has taken the request in (its bytes are then held).
  await new Promise((r) => setTimeout(r, 200));
  return {
    end: () =>
      new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.destroy();
      }),
  };
}

describe('bytes in flight per process', () => {
  const { t, acme, smtp } = smtpTestBed({ maxInFlightBytes: LIMIT }, [
    { name: 'submission', port: 0, secure: false },
  ]);
  let port: number;
  beforeAll(async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as net.AddressInfo).port;
  });

  const post = (text: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/email/messages',
      headers: acme.auth,
      payload: send(acme, text),
    });

  const smtpSend = (text: string) =>
    nodemailer
      .createTransport({
        host: '127.0.0.1',
        port: smtp.ports.submission,
        requireTLS: true,
        auth: { user: 'apikey', pass: acme.key },
        tls: { rejectUnauthorized: false },
      })
      .sendMail({ from: `noreply@${acme.domain}`, to: 'a@example.org', subject: 's', text });

  it('accepts a message larger than the bound when nothing else is held', async () => {
    expect((await post('x'.repeat(LIMIT + 500))).statusCode).toBe(200);
  });

  it('answers 503 with Retry-After past the bound, and accepts again once the held body is gone', async () => {
    const held = await heldRequest(port, acme, LIMIT - 1000);
    const refused = await post('x'.repeat(1500));
    await held.end();
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error_code).toBe('busy');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    expect((await post('x'.repeat(1500))).statusCode).toBe(200);
  });

  it('answers SMTP 451 past the bound, shared with HTTP bodies, and accepts again once they are gone', async () => {
    const held = await heldRequest(port, acme, LIMIT - 1000);
    const refused = await smtpSend('x'.repeat(1500)).catch(
      (err: { responseCode?: number; response?: string }) => err,
    );
    await held.end();
    expect((refused as { responseCode?: number }).responseCode).toBe(451);
    expect((refused as { response?: string }).response).toMatch(/^451 4\.3\.1 /);
    await new Promise((r) => setTimeout(r, 100));
    expect((await smtpSend('x'.repeat(1500))).response).toMatch(/^250 /);
  });
});
