import { describe, expect, it } from 'vitest';
import {
  countOf,
  defaultListId,
  makeList,
  makeSubscriber,
  marketingClient,
  marketingTestBed,
} from '../marketing.test-support.ts';

const { t, a, call } = marketingTestBed();

const byEmail = async (search: string) => {
  const res = await call('GET', `/subscribers?search=${encodeURIComponent(search)}`);
  return res.json().data as { id: string; attributes: { email: string; first_name: string | null } }[];
};

describe('bulk create', () => {
  it('creates subscribers with custom fields given as {name, value}, on the default list and the named list', async () => {
    const list = await makeList(call, 'Imported');
    const res = await call('POST', '/subscribers_bulk_create', {
      subscribers: [
        {
          email: 'one@bulk.test',
          first_name: 'One',
          custom_fields: [
            { name: 'Clinic', value: 'North' },
            { name: 'visits', value: 3 },
          ],
        },
        { email: 'two@bulk.test', last_name: 'Two', custom_fields: [] },
      ],
      subscription_list_id: list,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { num_subscribers_added: 2, num_subscribers_updated: 0 } });
    expect(await countOf(call, list)).toBe(2);
    const [one] = await byEmail('one bulk');
    const full = (await call('GET', `/subscribers/${one!.id}`)).json().data.attributes;
    expect(
      full.custom_fields.map((f: { custom_field_name: string; custom_field_value: string }) => [
        f.custom_field_name,
        f.custom_field_value,
      ]),
    ).toEqual([
      ['Clinic', 'North'],
      ['visits', '3'],
    ]);
  });

  it('updates existing emails (letter case ignored) instead of duplicating them, reusing the field type', async () => {
    const all = await defaultListId(call);
    const before = await countOf(call, all);
    const res = await call('POST', '/subscribers_bulk_create', {
      subscribers: [
        { email: 'ONE@bulk.test', first_name: 'Uno', custom_fields: [{ name: 'clinic', value: 'South' }] },
        { email: 'three@bulk.test' },
        { email: 'Three@Bulk.test', first_name: 'Tres' },
      ],
    });
    expect(res.json().data).toEqual({ num_subscribers_added: 1, num_subscribers_updated: 1 });
    expect(await countOf(call, all)).toBe(before + 1);
    const [one] = await byEmail('one bulk');
    expect(one!.attributes.first_name).toBe('Uno');
    const fields = (await call('GET', `/subscribers/${one!.id}`)).json().data.attributes.custom_fields;
    expect(
      fields.find((f: { custom_field_name: string }) => f.custom_field_name === 'Clinic').custom_field_value,
    ).toBe('South');
    expect((await byEmail('three'))[0]!.attributes.first_name).toBe('Tres');
  });

  it('writes a request of 1,500 new subscribers whole: names as given, one custom field each, every list counter raised', async () => {
    const list = await makeList(call, 'Large import');
    const subscribers = Array.from({ length: 1500 }, (_, i) => ({
      email: `many${i}@bulk.test`,
      first_name: i === 7 ? 'Zoë "Z" O\'Brien' : `Many${i}`,
      last_name: null,
      custom_fields: [{ name: 'Plan', value: i % 2 ? 'gold' : 'silver' }],
    }));
    const res = await call('POST', '/subscribers_bulk_create', { subscribers, subscription_list_id: list });
    expect(res.json().data).toEqual({ num_subscribers_added: 1500, num_subscribers_updated: 0 });
    expect(await countOf(call, list)).toBe(1500);
    const [seventh] = await byEmail('Zoë');
    const full = (await call('GET', `/subscribers/${seventh!.id}`)).json().data.attributes;
    expect([full.email, full.first_name, full.last_name]).toEqual([
      'many7@bulk.test',
      'Zoë "Z" O\'Brien',
      null,
    ]);
    expect(full.custom_fields.map((f: { custom_field_value: string }) => f.custom_field_value)).toEqual([
      'gold',
    ]);
  });

  it('refuses the whole request with 400 naming the index of an invalid email, writing nothing', async () => {
    const res = await call('POST', '/subscribers_bulk_create', {
      subscribers: [{ email: 'fine@bulk.test' }, { email: 'fine2@bulk.test' }, { email: 'broken' }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error_code: 'marketing.invalid_email',
      message: 'subscribers[2].email is not a valid email address',
    });
    expect(await byEmail('fine')).toEqual([]);
    const missing = await call('POST', '/subscribers_bulk_create', {
      subscribers: [{ email: 'x@bulk.test' }, { first_name: 'No email' }],
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().fields[0].field).toBe('subscribers[1].email');
  });

  it('refuses an empty subscribers array and an unknown list', async () => {
    expect((await call('POST', '/subscribers_bulk_create', { subscribers: [] })).statusCode).toBe(400);
    expect(
      (
        await call('POST', '/subscribers_bulk_create', {
          subscribers: [{ email: 'q@bulk.test' }],
          subscription_list_id: 424242,
        })
      ).statusCode,
    ).toBe(404);
    expect(await byEmail('q bulk')).toEqual([]);
  });
});

describe('bulk delete', () => {
  it('with a list, removes the subscribers from that list only, lowering its counter', async () => {
    const list = await makeList(call, 'Trim me');
    const x = await makeSubscriber(call, 'x@del.test', {}, list);
    const y = await makeSubscriber(call, 'y@del.test', {}, list);
    const all = await defaultListId(call);
    const before = await countOf(call, all);
    const res = await call(
      'DELETE',
      `/subscribers_bulk_delete?subscriber_ids=${x},${y}&subscription_list_id=${list}`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect(await countOf(call, list)).toBe(0);
    expect(await countOf(call, all)).toBe(before);
    expect((await call('GET', `/subscribers/${x}`)).statusCode).toBe(200);
  });

  it('without a list, deletes the subscribers from all contacts, lowering every counter; unknown ids are skipped', async () => {
    const list = await makeList(call, 'Gone');
    const x = await makeSubscriber(call, 'gone1@del.test', {}, list);
    const y = await makeSubscriber(call, 'gone2@del.test');
    const all = await defaultListId(call);
    const before = await countOf(call, all);
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/v1/marketing/subscribers_bulk_delete?subscriber_ids=${x},%20${y},999999`,
      headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(res.statusCode).toBe(200);
    expect(await countOf(call, all)).toBe(before - 2);
    expect(await countOf(call, list)).toBe(0);
    expect((await call('GET', `/subscribers/${x}`)).statusCode).toBe(404);
    expect(await makeSubscriber(call, 'gone1@del.test')).not.toBe(x);
  });

  it("does not touch another account's subscribers", async () => {
    const other = marketingClient(t, await t.createAccount());
    const theirs = await makeSubscriber(other, 'keep@del.test');
    expect((await call('DELETE', `/subscribers_bulk_delete?subscriber_ids=${theirs}`)).statusCode).toBe(200);
    expect((await other('GET', `/subscribers/${theirs}`)).statusCode).toBe(200);
  });

  it('refuses missing or malformed subscriber_ids with 400 and an unknown list with 404', async () => {
    expect((await call('DELETE', '/subscribers_bulk_delete')).statusCode).toBe(400);
    const bad = await call('DELETE', '/subscribers_bulk_delete?subscriber_ids=1,two');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('"two"');
    expect(
      (await call('DELETE', '/subscribers_bulk_delete?subscriber_ids=1&subscription_list_id=77777'))
        .statusCode,
    ).toBe(404);
  });
});
