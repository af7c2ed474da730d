/** The subscribers export as Paubox's marketing CLI asks for it: its audience parameters, `jid`, and the mailed link. */
import { beforeAll, describe, expect, it } from 'vitest';
import { openContent } from '../../mail/content.ts';
import { makeList, makeSubscriber, marketingTestBed, refusesParameter } from '../marketing.test-support.ts';
import { runExport } from './exports.service.ts';

const { t, a, call } = marketingTestBed();
let list: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  list = await makeList(call, 'Clinic');
  for (const [name, first] of [
    ['ann', 'Ann'],
    ['ben', 'Ben'],
    ['cat', 'Cat'],
  ] as const)
    ids[name] = await makeSubscriber(call, `${name}@export.example`, { first_name: first }, list);
  ids.out = await makeSubscriber(call, 'out@export.example', { first_name: 'Ann' });
});

/** Starts an export with the body the CLI sends, runs it, and answers the emails it holds. */
async function exported(body: Record<string, unknown>): Promise<string[]> {
  const started = await call('POST', '/subscribers_export_csv', { email: 'me@clinic.example', ...body });
  expect(started.statusCode, started.body).toBe(200);
  const { id, download_key: key } = started.json().data;
  await runExport(t.ctx, Number(id));
  const csv = (await call('GET', `/bulk_jobs/${id}/download?key=${key}`)).body.trim().split('\r\n');
  return csv
    .slice(1)
    .map((l) => l.split(',')[1]!.replace(/"/g, ''))
    .sort();
}

describe('POST /subscribers_export_csv', () => {
  it('answers the job id as jid and the address it will mail as sent_to_email', async () => {
    const res = await call('POST', '/subscribers_export_csv', { email: 'me@clinic.example' });
    expect(res.json().data).toMatchObject({ jid: res.json().data.id, sent_to_email: 'me@clinic.example' });
  });

  it('exports the members of from_subscription_list_id', async () => {
    expect(await exported({ from_subscription_list_id: list })).toEqual([
      'ann@export.example',
      'ben@export.example',
      'cat@export.example',
    ]);
  });

  it('exports only subscriber_ids, minus except_ids', async () => {
    expect(await exported({ subscriber_ids: [ids.ann, ids.out] })).toEqual([
      'ann@export.example',
      'out@export.example',
    ]);
    expect(await exported({ from_subscription_list_id: list, except_ids: [ids.ben] })).toEqual([
      'ann@export.example',
      'cat@export.example',
    ]);
  });

  it('narrows to subscribers matching search, and takes * for all', async () => {
    expect(await exported({ search: 'ann' })).toEqual(['ann@export.example', 'out@export.example']);
    expect(await exported({ from_subscription_list_id: list, search: '*' })).toHaveLength(3);
  });

  it('refuses a bad search, a bad email or an unknown subscriber, and starts nothing', async () => {
    const before = (await call('GET', '/bulk_jobs?use_pagination=true')).json().total_count;
    expect(refusesParameter(await call('POST', '/subscribers_export_csv', { search: 'a%' }), 'search')).toBe(
      true,
    );
    expect(
      refusesParameter(await call('POST', '/subscribers_export_csv', { email: 'not mail' }), 'email'),
    ).toBe(true);
    const other = await makeList(call, 'Other');
    const both = await call('POST', '/subscribers_export_csv', {
      subscription_list_id: list,
      from_subscription_list_id: other,
    });
    expect(refusesParameter(both, 'from_subscription_list_id')).toBe(true);
    const unknown = await call('POST', '/subscribers_export_csv', {
      subscriber_ids: ['0190a4c2-0000-7000-8000-000000000000'],
    });
    expect(unknown.statusCode).toBe(404);
    expect((await call('GET', '/bulk_jobs?use_pagination=true')).json().total_count).toBe(before);
  });

  it('mails a console link to the finished export to email, never its data', async () => {
    await exported({ from_subscription_list_id: list, email: 'owner@clinic.example' });
    const db = t.ctx.database.db;
    const sent = await db
      .selectFrom('messages as m')
      .innerJoin('message_recipients as r', 'r.message_id', 'm.id')
      .select(['m.id', 'm.content'])
      .where('m.customer_id', '=', a.account.customer_id)
      .where('r.address', '=', 'owner@clinic.example')
      .execute();
    expect(sent).toHaveLength(1);
    const content = JSON.stringify(openContent(t.ctx.sealer, sent[0]!.id, sent[0]!.content!));
    expect(content).toMatch(/\/console\/audiences\/exports\/\d+\/export\.csv/);
    expect(content).not.toContain('ann@export.example');
  });
});
