/**
 * An id in a path is taken exactly as sent: with surrounding spaces, tabs or line breaks (`%20`, `%09`, `%0a`) it names
 * nothing, so the answer is 404, never the resource the trimmed id would name.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestBed } from '../console/console.test-support.ts';
import { marketingClient, makeList, makeSubscriber } from '../marketing/marketing.test-support.ts';
import { createForm } from '../forms/forms.test-support.ts';
import { message, postJson, recipientsOf } from '../email/email.test-support.ts';
import { capturedAad } from '../email/captured.service.ts';

const {
  t,
  a,
  clients: [owner],
} = consoleTestBed(['owner']);
const WRAPS = [
  (id: string) => `%20${id}`,
  (id: string) => `${id}%20`,
  (id: string) => `%09${id}`,
  (id: string) => `${id}%0a`,
];
let api: { path: (id: string) => string; id: string }[];
let consolePaths: { path: (id: string) => string; id: string }[];

async function capturedId(): Promise<string> {
  const sent = await postJson(t, '/v1/email/messages', a.auth, {
    data: { message: message(`desk@${a.domain}`) },
  });
  const id = sent.json().sourceTrackingId as string;
  const [r] = await recipientsOf(t, id);
  const row = await t.ctx.database.db
    .insertInto('captured_messages')
    .values({
      customer_id: a.account.customer_id,
      message_id: id,
      recipient_id: r!.id,
      envelope_from: `bounce@${a.domain}`,
      envelope_to: r!.address,
      raw: t.ctx.sealer.seal('From: desk@x\r\nSubject: Hi\r\n\r\nHello\r\n', capturedAad(id, r!.id)),
      created_at: Date.now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

beforeAll(async () => {
  const call = marketingClient(t, a);
  const m = `/v1/marketing/${a.account.username}`;
  const list = await makeList(call, 'Patients');
  const listUuid = (await call('GET', `/subscription_lists/${list}`)).json().data.uuid as string;
  const subscriber = await makeSubscriber(call, 'pat@example.org');
  const form = await createForm(t.app, a.auth);
  api = [
    { path: (id) => `${m}/subscription_lists/${id}`, id: list },
    { path: (id) => `${m}/subscription_lists/${id}`, id: listUuid },
    { path: (id) => `${m}/subscription_lists/${id}`, id: 'default' },
    { path: (id) => `${m}/subscribers/${id}`, id: subscriber },
    { path: (id) => `/v1/forms/api/forms/${id}`, id: form },
  ];
  consolePaths = [
    { path: (id) => `/console/captured/${id}`, id: await capturedId() },
    { path: (id) => `/console/audiences/lists/${id}`, id: list },
  ];
});

describe('ids with surrounding whitespace or control characters', () => {
  it('the exact ids name their resources', async () => {
    for (const { path, id } of api)
      expect(
        (await t.app.inject({ method: 'GET', url: path(id), headers: a.auth })).statusCode,
        path(id),
      ).toBe(200);
    for (const { path, id } of consolePaths)
      expect((await owner.get(path(id))).statusCode, path(id)).toBe(200);
  });

  it('answers 404 on the API for a wrapped id', async () => {
    const wrong: string[] = [];
    for (const { path, id } of api)
      for (const wrap of WRAPS) {
        const res = await t.app.inject({ method: 'GET', url: path(wrap(id)), headers: a.auth });
        if (res.statusCode !== 404) wrong.push(`${path(wrap(id))} → ${res.statusCode}`);
      }
    expect(wrong).toEqual([]);
  });

  it('answers 404 in the console for a wrapped id', async () => {
    const wrong: string[] = [];
    for (const { path, id } of consolePaths)
      for (const wrap of WRAPS) {
        const res = await owner.get(path(wrap(id)));
        if (res.statusCode !== 404) wrong.push(`${path(wrap(id))} → ${res.statusCode}`);
      }
    expect(wrong).toEqual([]);
  });
});
