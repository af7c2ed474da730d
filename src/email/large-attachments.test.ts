/**
 * Sends whose attachments are read as the body arrives (held as base64 pieces, decoded into the sealed value): over a
 * real socket, chunked or with a length, one message or several, with Idempotency-Key, and refused without a trace.
 */
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { heldCount } from '../mail/held-attachments.ts';
import { emailTestBed, message, messageCount, storedMessage } from './email.test-support.ts';

const pdf = (bytes: Buffer) => ({
  fileName: 'scan.pdf',
  contentType: 'application/pdf',
  content: bytes.toString('base64'),
});

describe('large attachments', () => {
  const { t, acme } = emailTestBed('largeacme');
  let base: string;
  beforeAll(async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });

  /** POSTs JSON text over the socket, in 16 KB pieces without a declared length when `chunked`. */
  const post = (url: string, text: string, opts: { chunked?: boolean; key?: string } = {}) => {
    const bytes = Buffer.from(text);
    const body = opts.chunked
      ? new ReadableStream<Uint8Array>({
          start(controller) {
            for (let at = 0; at < bytes.length; at += 16_384)
              controller.enqueue(bytes.subarray(at, at + 16_384));
            controller.close();
          },
        })
      : bytes;
    return fetch(`${base}${url}`, {
      method: 'POST',
      headers: {
        ...acme.auth,
        'content-type': 'application/json',
        ...(opts.key && { 'idempotency-key': opts.key }),
      },
      body,
      duplex: 'half',
    } as RequestInit);
  };
  const count = () => messageCount(t, acme);

  it('stores the attachment byte for byte, chunked or not, with slashes escaped or not, and holds nothing after', async () => {
    const bytes = randomBytes(1_500_000);
    const text = JSON.stringify({
      data: { message: message(`desk@${acme.domain}`, { attachments: [pdf(bytes)] }) },
    });
    for (const [body, chunked] of [
      [text, true],
      [text, false],
      [text.replaceAll('/', '\\/'), true],
    ] as const) {
      const res = await post('/v1/email/messages', body, { chunked });
      expect(res.status, await res.clone().text()).toBe(200);
      const { content } = await storedMessage(
        t,
        ((await res.json()) as { sourceTrackingId: string }).sourceTrackingId,
      );
      expect(content.attachments).toHaveLength(1);
      expect(Buffer.from(content.attachments[0]!.content, 'base64').equals(bytes)).toBe(true);
      expect(heldCount()).toBe(0);
    }
  });

  it('stores each message of a bulk send with its own attachment', async () => {
    const files = [randomBytes(200_000), randomBytes(300_000)];
    const res = await post(
      '/v1/email/bulk_messages',
      JSON.stringify({
        data: { messages: files.map((f) => message(`desk@${acme.domain}`, { attachments: [pdf(f)] })) },
      }),
      { chunked: true },
    );
    expect(res.status, await res.clone().text()).toBe(200);
    const ids = ((await res.json()) as { messages: { sourceTrackingId: string }[] }).messages.map(
      (r) => r.sourceTrackingId,
    );
    for (const [i, id] of ids.entries()) {
      const { content } = await storedMessage(t, id);
      expect(Buffer.from(content.attachments[0]!.content, 'base64').equals(files[i]!)).toBe(true);
    }
    expect(heldCount()).toBe(0);
  });

  it('replays a repeated request under its Idempotency-Key, and refuses the key with another attachment', async () => {
    const bytes = randomBytes(400_000);
    const body = (b: Buffer) =>
      JSON.stringify({ data: { message: message(`desk@${acme.domain}`, { attachments: [pdf(b)] }) } });
    const before = await count();
    const first = await post('/v1/email/messages', body(bytes), { key: 'scan-1', chunked: true });
    const again = await post('/v1/email/messages', body(bytes), { key: 'scan-1' });
    expect(first.status).toBe(200);
    expect(await again.json()).toEqual(await first.json());
    const other = await post('/v1/email/messages', body(randomBytes(400_000)), { key: 'scan-1' });
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ error_code: 'email.idempotency_mismatch' });
    expect(await count()).toBe(before + 1);
    expect(heldCount()).toBe(0);
  });

  it('refuses a bad message or bad base64 with its error, stores nothing and holds nothing', async () => {
    const before = await count();
    const bad = await post(
      '/v1/email/messages',
      JSON.stringify({
        data: { message: message('not an address', { attachments: [pdf(randomBytes(300_000))] }) },
      }),
      { chunked: true },
    );
    expect(bad.status).toBe(400);
    const notBase64 = await post(
      '/v1/email/messages',
      JSON.stringify({
        data: {
          message: message(`desk@${acme.domain}`, {
            attachments: [
              { fileName: 'a.bin', contentType: 'application/octet-stream', content: '!'.repeat(200_000) },
            ],
          }),
        },
      }),
    );
    expect(notBase64.status).toBe(400);
    expect(((await notBase64.json()) as { message: string }).message).toContain('is not valid base64');
    const truncated = await post(
      '/v1/email/messages',
      '{"data": {"message": {"attachments": [{"content": "' + 'QUJD'.repeat(50_000),
    );
    expect(truncated.status).toBe(400);
    expect(await count()).toBe(before);
    expect(heldCount()).toBe(0);
  });
});
