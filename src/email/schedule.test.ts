/**
 * Scheduled messages through the HTTP API, with the bodies the Paubox MCP client sends: scheduling, reading,
 * rescheduling and cancelling, and refusals that carry an error title and change nothing.
 */
import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { emailTestBed, postJson, rowCounts } from './email.test-support.ts';
import { contentRetentionTask } from './delivery.service.ts';

const { t, acme, other } = emailTestBed('schedacme');

const HOUR = 3_600_000;
const inHours = (h: number) => new Date(Date.now() + h * HOUR).toISOString();

/** The body the MCP client's scheduleEmail sends (html base64-encoded, nulls for absent lists). */
function scheduleBody(scheduledAt: unknown, from = `desk@${acme.domain}`) {
  return {
    data: {
      message: {
        recipients: ['patient@example.net'],
        cc: null,
        bcc: null,
        headers: { subject: 'Appointment reminder', from, 'reply-to': null },
        content: {
          'text/plain': 'See you tomorrow at 9.',
          'text/html': Buffer.from('<p>See you tomorrow at 9.</p>').toString('base64'),
        },
        attachments: [],
        allowNonTLS: false,
        forceSecureNotification: false,
      },
      scheduled_at: scheduledAt,
    },
  };
}

const schedule = (body: unknown, auth = acme.auth, prefix = '/v1/email') =>
  postJson(t, `${prefix}/schedule`, auth, body);
const read = (id: string, auth = acme.auth) =>
  t.app.inject({ method: 'GET', url: `/v1/email/schedule/${id}`, headers: auth });
const patch = (id: string, body: unknown) =>
  t.app.inject({
    method: 'PATCH',
    url: `/v1/email/schedule/${id}`,
    headers: { ...acme.auth, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
const cancel = (id: string) => postJson(t, `/v1/email/schedule/${id}/cancel`, acme.auth, {});

async function scheduled(at = inHours(2)): Promise<string> {
  const res = await schedule(scheduleBody(at));
  expect(res.statusCode, res.body).toBe(200);
  return res.json().sourceTrackingId as string;
}

/** What the MCP client shows of an error: the titles of `errors`. */
const titles = (res: LightMyRequestResponse) =>
  (res.json().errors as { title: string }[]).map((e) => e.title);

describe('scheduling a message', () => {
  it('answers the sourceTrackingId, the time and the state the client shows', async () => {
    const at = inHours(3);
    const res = await schedule(scheduleBody(at));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.sourceTrackingId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.scheduledAt).toBe(at);
    expect(body.state).toBe('scheduled');
    expect(body.data).toBe('Message scheduled');
  });

  it('accepts a time with an offset and answers it in UTC', async () => {
    const ms = Date.now() + 5 * HOUR;
    const local = new Date(ms + 5 * HOUR).toISOString().replace('Z', '+05:00');
    const res = await schedule(scheduleBody(local));
    expect(res.statusCode, res.body).toBe(200);
    expect(Date.parse(res.json().scheduledAt)).toBe(Date.parse(local));
    expect(res.json().scheduledAt).toMatch(/Z$/);
  });

  it('is reachable under the account-named and bare prefixes too', async () => {
    for (const prefix of ['/v1/schedacme', '/v1']) {
      const res = await schedule(scheduleBody(inHours(1)), acme.auth, prefix);
      expect(res.statusCode, `${prefix}: ${res.body}`).toBe(200);
    }
  });

  it('keeps the message body sealed at rest', async () => {
    const id = await scheduled();
    const row = await t.ctx.database.db
      .selectFrom('scheduled_messages')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.content).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain('See you tomorrow');
    expect(JSON.stringify(row)).not.toContain('patient@example.net');
  });

  it('writes no message and no receipt until it is due', async () => {
    const id = await scheduled();
    const receipt = await t.app.inject({
      method: 'GET',
      url: `/v1/email/message_receipt?sourceTrackingId=${id}`,
      headers: acme.auth,
    });
    expect(receipt.statusCode).toBe(404);
  });
});

describe('reading, rescheduling and cancelling', () => {
  it('reads back the state and time', async () => {
    const at = inHours(4);
    const id = await scheduled(at);
    const res = await read(id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ sourceTrackingId: id, state: 'scheduled', scheduledAt: at });
  });

  it('moves a scheduled message to the new time', async () => {
    const id = await scheduled();
    const at = inHours(6);
    const res = await patch(id, { scheduled_at: at });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ sourceTrackingId: id, scheduledAt: at, state: 'scheduled' });
    expect((await read(id)).json().scheduledAt).toBe(at);
  });

  it('cancels a scheduled message and drops its content', async () => {
    const id = await scheduled();
    const res = await cancel(id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ sourceTrackingId: id, state: 'cancelled' });
    expect((await read(id)).json().state).toBe('cancelled');
    const row = await t.ctx.database.db
      .selectFrom('scheduled_messages')
      .select('content')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.content).toBeNull();
  });

  it('forgets a cancelled message after the content retention, and keeps a scheduled one', async () => {
    const gone = await scheduled();
    const kept = await scheduled(inHours(24 * 29));
    expect((await cancel(gone)).statusCode).toBe(200);
    const days = t.ctx.config.contentRetentionDays;
    await contentRetentionTask(t.ctx).run(Date.now() + (days - 1) * 24 * HOUR);
    expect((await read(gone)).statusCode).toBe(200);
    await contentRetentionTask(t.ctx).run(Date.now() + (days + 1) * 24 * HOUR);
    expect((await read(gone)).statusCode).toBe(404);
    expect((await read(kept)).json()).toMatchObject({ state: 'scheduled' });
  });

  it('refuses to reschedule or cancel a cancelled message, with a title', async () => {
    const id = await scheduled();
    await cancel(id);
    const again = await cancel(id);
    expect(again.statusCode).toBe(409);
    expect(titles(again)).toEqual(['Scheduled message already sent or cancelled']);
    expect(again.json().state).toBe('cancelled');
    const moved = await patch(id, { scheduled_at: inHours(8) });
    expect(moved.statusCode).toBe(409);
    expect((await read(id)).json().state).toBe('cancelled');
  });

  it("does not show, move or cancel another account's message", async () => {
    const id = await scheduled();
    const res = await read(id, other.auth);
    expect(res.statusCode).toBe(404);
    expect(titles(res)).toEqual(['Scheduled message not found']);
    expect(res.json().sourceTrackingId).toBe(id);
    const cancelled = await postJson(t, `/v1/email/schedule/${id}/cancel`, other.auth, {});
    expect(cancelled.statusCode).toBe(404);
    expect((await read(id)).json().state).toBe('scheduled');
  });
});

describe('bad input changes nothing', () => {
  async function refused(res: LightMyRequestResponse, before: Record<string, number>, title: string) {
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().message).toEqual(expect.any(String));
    expect(titles(res)).toEqual([title]);
    expect(await counts()).toEqual(before);
  }
  async function counts() {
    const scheduledRows = await t.ctx.database.db
      .selectFrom('scheduled_messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return { ...(await rowCounts(t)), scheduled: Number(scheduledRows.n) };
  }

  it.each([
    ['missing', undefined],
    ['null', null],
    ['not a string', 1767225600],
    ['without a time zone', '2030-01-01T09:00:00'],
    ['not a date', 'tomorrow at nine'],
    ['a day that does not exist', '2030-02-30T09:00:00Z'],
    ['in the past', new Date(Date.now() - 60_000).toISOString()],
    ['more than 30 days ahead', new Date(Date.now() + 31 * 24 * HOUR).toISOString()],
  ])('refuses scheduled_at %s', async (_what, value) => {
    const before = await counts();
    await refused(await schedule(scheduleBody(value)), before, 'Invalid scheduled time');
  });

  it('refuses an unverified From domain as a send would', async () => {
    const before = await counts();
    await refused(
      await schedule(scheduleBody(inHours(1), 'desk@not-ours.example')),
      before,
      'Sender domain not verified',
    );
  });

  it('refuses a message without a subject', async () => {
    const before = await counts();
    const body = scheduleBody(inHours(1));
    (body.data.message.headers as Record<string, unknown>).subject = null;
    await refused(await schedule(body), before, 'Bad request');
  });

  it('refuses a reschedule into the past and keeps the time', async () => {
    const at = inHours(2);
    const id = await scheduled(at);
    const before = await counts();
    const res = await patch(id, { scheduled_at: new Date(Date.now() - HOUR).toISOString() });
    await refused(res, before, 'Invalid scheduled time');
    expect((await read(id)).json().scheduledAt).toBe(at);
  });
});
