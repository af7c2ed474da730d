/** Sending through the API, delivering with the capture transport, then reading what was captured and following its links. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import type { Worker } from '../jobs/worker.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { startDeliveryWorker, waitUntilFinished } from '../delivery/delivery.test-support.ts';
import { message, postJson } from './email.test-support.ts';

describe('send, capture, open, click, read securely', () => {
  let t: TestApp;
  let acme: TestAccount;
  let worker: Worker | undefined;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createAccount();
  });
  afterEach(async () => {
    await worker?.stop(2000);
    worker = undefined;
  });
  afterAll(() => t.close());

  async function sendAndDeliver(extra: Record<string, unknown>): Promise<string> {
    worker = startDeliveryWorker(t);
    const res = await postJson(t, '/v1/email/messages', acme.auth, {
      data: { message: message(`desk@${acme.domain}`, extra) },
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().sourceTrackingId as string;
    await waitUntilFinished(t, id);
    return id;
  }

  async function capturedOf(id: string) {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/email/captured_messages?sourceTrackingId=${id}`,
      headers: acme.auth,
    });
    expect(res.statusCode).toBe(200);
    return res.json().captured as { raw: string; envelope_to: string }[];
  }

  const receipt = async (id: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/v1/email/message_receipt?sourceTrackingId=${id}`,
        headers: acme.auth,
      })
    ).json().data.message;

  it('counts the open pixel and the click link found in the captured mail', async () => {
    const id = await sendAndDeliver({
      content: { 'text/html': '<html><body><a href="https://example.org/report">report</a></body></html>' },
    });
    const [captured] = await capturedOf(id);
    const html = String((await simpleParser(captured!.raw)).html);
    const pixel = /src="([^"]*\/t\/o\/[^"]+)"/.exec(html)?.[1];
    const click = /href="([^"]*\/t\/c\/[^"]+)"/.exec(html)?.[1];
    expect(pixel && click).toBeTruthy();
    expect((await t.app.inject({ method: 'GET', url: new URL(pixel!).pathname })).statusCode).toBe(200);
    const redirect = await t.app.inject({
      method: 'GET',
      url: new URL(click!.replace(/&amp;/g, '&')).pathname,
    });
    expect(redirect.headers.location).toBe('https://example.org/report');
    const m = await receipt(id);
    expect(m.message_deliveries[0].status).toMatchObject({
      deliveryStatus: 'delivered',
      openedStatus: 'opened',
    });
    expect([m.total_opens, m.distinct_opens, m.total_click_count]).toEqual([1, 1, 1]);
    expect(m.clicks_per_link).toEqual([{ click_count: 1, target_url: 'https://example.org/report' }]);
  });

  it('shows the message on the secure page linked from a secure notification', async () => {
    const attachment = Buffer.from('lab values: 4.1 mmol/L');
    const id = await sendAndDeliver({
      forceSecureNotification: true,
      headers: { subject: 'Your lab results', from: `desk@${acme.domain}` },
      content: { 'text/plain': 'Potassium is normal.' },
      attachments: [
        { fileName: 'labs.txt', contentType: 'text/plain', content: attachment.toString('base64') },
      ],
    });
    const [captured] = await capturedOf(id);
    const mail = await simpleParser(captured!.raw);
    expect(mail.text).not.toContain('Potassium');
    const link = /https?:\/\/\S+\/s\/[A-Za-z0-9_-]+/.exec(String(mail.text))?.[0];
    expect(link).toBeDefined();
    const page = await t.app.inject({ method: 'GET', url: new URL(link!).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Your lab results');
    expect(page.body).toContain('Potassium is normal.');
    const file = await t.app.inject({ method: 'GET', url: `${new URL(link!).pathname}/attachments/0` });
    expect(file.rawPayload.equals(attachment)).toBe(true);
  });
});
