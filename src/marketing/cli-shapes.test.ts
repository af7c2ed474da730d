/**
 * What the Paubox marketing command line sends (bare `/v1/marketing`, `Bearer` key) and the fields its human output
 * reads: subscribers' `full_name`, `created_at` and `custom_fields[].name/value`, `page_info.count` on paged lists,
 * `total_jobs`, `pending`, `failures` on bulk jobs, and the subscribed count as the number it prints.
 */
import { describe, expect, it } from 'vitest';
import { makeList, marketingClient, marketingTestBed } from './marketing.test-support.ts';
import { runExport } from './exports/exports.service.ts';

const bed = marketingTestBed();
const cli = () => marketingClient(bed.t, bed.a, { bare: true, bearer: true });

describe('marketing command line shapes', () => {
  it('shows full_name and created_at on listed subscribers', async () => {
    const body = { subscriber: { email: 'grace@cli.example', first_name: 'Grace', last_name: 'Hopper' } };
    expect((await cli()('POST', '/subscribers', body)).statusCode).toBe(200);
    await cli()('POST', '/subscribers', { subscriber: { email: 'anon@cli.example' } });
    const rows = (await cli()('GET', '/subscribers?search=cli')).json().data;
    const grace = rows.find(
      (r: { attributes: { email: string } }) => r.attributes.email === 'grace@cli.example',
    );
    expect(grace.attributes.full_name).toBe('Grace Hopper');
    expect(Date.parse(grace.attributes.created_at)).not.toBeNaN();
    const anon = rows.find(
      (r: { attributes: { email: string } }) => r.attributes.email === 'anon@cli.example',
    );
    expect(anon.attributes.full_name).toBeNull();
  });

  it('shows full_name, phone and custom fields as name and value on one subscriber', async () => {
    const created = await cli()('POST', '/subscribers', {
      subscriber: {
        email: 'ada@cli.example',
        first_name: 'Ada',
        phone_number: '+44 20 7946 0018',
        custom_fields: [{ name: 'Clinic', value: 'North Campus' }],
      },
    });
    const id = created.json().data.id;
    const attrs = (await cli()('GET', `/subscribers/${id}`)).json().data.attributes;
    expect(attrs.full_name).toBe('Ada');
    expect(attrs.phone_number).toBeTruthy();
    expect(attrs.custom_fields).toEqual([expect.objectContaining({ name: 'Clinic', value: 'North Campus' })]);
  });

  it('counts the matches in page_info on paged lists', async () => {
    await makeList(bed.call, 'CLI one');
    await makeList(bed.call, 'CLI two');
    for (const path of ['/lists', '/subscription_lists', '/dynamic_lists']) {
      const res = (await cli()('GET', `${path}?page=1&items=1&use_pagination=true`)).json();
      expect(res.page_info.count, path).toBe(res.total_count);
      expect(res.page_info).toMatchObject({ page: 1, pages: res.total_count, items: 1 });
    }
    const lists = (await cli()('GET', '/lists?page=1&items=1&use_pagination=true')).json();
    expect(lists.page_info.count).toBeGreaterThanOrEqual(3);
  });

  it('answers the subscribed count as a number, of the default list or a named one', async () => {
    const list = await makeList(bed.call, 'CLI counted');
    await cli()('POST', '/subscribers', {
      subscriber: { email: 'counted@cli.example' },
      subscription_list_id: String(list),
    });
    const named = (await cli()('GET', `/subscribers/subscribed_count?subscription_list_id=${list}`)).json();
    expect(named).toEqual({ data: 1 });
    const byDefault = (await cli()('GET', '/subscribers/subscribed_count')).json();
    expect(byDefault.data).toBeGreaterThanOrEqual(1);
    const named2 = await cli()('GET', '/subscribers/subscribed_count?subscription_list_id=default');
    expect(named2.json()).toEqual(byDefault);
  });

  it('gives bulk jobs their totals, pending and failures, listed and one by one', async () => {
    const started = await cli()('POST', '/subscribers_export_csv', { email: 'me@cli.example' });
    const id = started.json().data.id;
    const queued = (await cli()('GET', '/bulk_jobs')).json().data[0];
    expect(queued).toMatchObject({ total_jobs: null, pending: null, failures: 0 });
    await runExport(bed.t.ctx, Number(id), 2);
    const total = (await cli()('GET', '/subscribers?use_pagination=true')).json().total_count;
    const done = (await cli()('GET', `/bulk_jobs/${id}`)).json().data;
    expect(done).toMatchObject({ total_jobs: total, pending: 0, failures: 0 });
    const listed = (await cli()('GET', '/bulk_jobs')).json().data;
    expect(listed[0]).toMatchObject({ id, total_jobs: total, pending: 0, failures: 0 });
  });
});
