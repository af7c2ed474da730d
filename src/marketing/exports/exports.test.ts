/** Exports as background jobs: start, progress, a sealed chunked file, and a download that needs the key. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { makeList, makeSubscriber, marketingClient } from '../marketing.test-support.ts';
import { runExport } from './exports.service.ts';

let t: TestApp;
let a: TestAccount;
let call: ReturnType<typeof marketingClient>;
let list: string;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  call = marketingClient(t, a);
  list = await makeList(call, 'Export me');
  for (let i = 0; i < 5; i++)
    await makeSubscriber(call, `p${i}@export.example`, { first_name: `P${i}` }, list);
  await makeSubscriber(call, 'outside@export.example', { first_name: 'Out' });
});
afterAll(() => t.close());

describe('exports', () => {
  it('runs a list export as a job with progress, stores it sealed, and streams it only with the key', async () => {
    const started = await call('POST', '/subscribers_export_csv', { subscription_list_id: list });
    expect(started.statusCode, started.body).toBe(200);
    const { id, download_key: key, attributes } = started.json().data;
    expect(attributes).toMatchObject({
      kind: 'subscribers_export',
      state: 'queued',
      rows_done: 0,
      download_url: null,
    });
    expect((await call('GET', `/bulk_jobs/${id}/download?key=${key}`)).json().error_code).toBe(
      'marketing.bulk_job_not_ready',
    );

    await runExport(t.ctx, Number(id), 2);
    const job = (await call('GET', `/bulk_jobs/${id}`)).json().data;
    expect(job.attributes).toMatchObject({ state: 'finished', rows_done: 5, rows_total: 5, progress: 1 });
    expect(job.attributes.download_url).toContain(`/bulk_jobs/${id}/download`);
    const chunks = await t.ctx.database.db
      .selectFrom('bulk_job_chunks')
      .select('data')
      .where('job_id', '=', Number(id))
      .execute();
    expect(chunks).toHaveLength(3);
    expect(chunks.some((c) => c.data.includes('export.example'))).toBe(false);

    const csv = await call('GET', `/bulk_jobs/${id}/download?key=${encodeURIComponent(key)}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe('id,email,first_name,last_name,phone_number,unsubscribed,created_at,updated_at');
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(
      [0, 1, 2, 3, 4].map((i) => `"p${i}@export.example"`),
    );
    expect((await call('GET', `/bulk_jobs/${id}/download`)).statusCode).toBe(403);
    expect((await call('GET', `/bulk_jobs/${id}/download?key=wrong`)).json().error_code).toBe(
      'marketing.download_key_invalid',
    );
    const listed = await call('GET', '/bulk_jobs?use_pagination=true');
    expect(listed.json().total_count).toBeGreaterThanOrEqual(1);
  });

  it('carries one column per custom field type of the account, as the types were when the export ran', async () => {
    const other = await t.createAccount();
    await makeSubscriber(marketingClient(t, other), 'x@other.example', {
      custom_fields: [{ name: 'Secret', value: 'no' }],
    });
    const fieldList = await makeList(call, 'With fields');
    await makeSubscriber(
      call,
      'gold@fields.example',
      { custom_fields: [{ name: 'Plan', value: 'Gold' }] },
      fieldList,
    );
    await makeSubscriber(
      call,
      'north@fields.example',
      { custom_fields: [{ name: 'Clinic', value: 'North, "East"' }] },
      fieldList,
    );
    await makeSubscriber(call, 'none@fields.example', {}, fieldList);
    const started = await call('POST', '/subscribers_export_csv', { subscription_list_id: fieldList });
    const { id, download_key: key } = started.json().data;
    await runExport(t.ctx, Number(id), 2);
    await makeSubscriber(call, 'later@fields.example', { custom_fields: [{ name: 'Later', value: 'x' }] });

    const lines = (await call('GET', `/bulk_jobs/${id}/download?key=${key}`)).body.trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,email,first_name,last_name,phone_number,unsubscribed,created_at,updated_at,"Plan","Clinic"',
    );
    const byEmail = new Map(lines.slice(1).map((l) => [l.split(',')[1], l]));
    expect(byEmail.get('"gold@fields.example"')).toMatch(/,"Gold",""$/);
    expect(byEmail.get('"north@fields.example"')).toMatch(/,"","North, ""East"""$/);
    expect(byEmail.get('"none@fields.example"')).toMatch(/,"",""$/);
    expect(lines).toHaveLength(4);
  });

  it('exports a dynamic list, and refuses an unknown one or bad filters', async () => {
    const dyn = await call('POST', '/dynamic_lists', {
      name: 'Out',
      filters: [[{ field: 'first_name', op: 'is', terms: ['out'] }]],
    });
    const started = await call('POST', '/export_dynamic_list_csv', { dynamic_list_id: dyn.json().data.id });
    const { id, download_key: key } = started.json().data;
    await runExport(t.ctx, Number(id));
    const csv = await call('GET', `/bulk_jobs/${id}/download?key=${key}`);
    expect(csv.body.trim().split('\r\n').slice(1)).toHaveLength(1);
    expect(csv.body).toContain('outside@export.example');
    expect((await call('POST', '/export_dynamic_list_csv', { dynamic_list_id: '999999' })).statusCode).toBe(
      404,
    );
    expect(
      (
        await call('POST', '/subscribers_export_csv', {
          filters: [[{ field: 'nope', op: 'is', terms: ['x'] }]],
        })
      ).statusCode,
    ).toBe(400);
    expect((await call('GET', '/bulk_jobs/999999')).statusCode).toBe(404);
  });
});
