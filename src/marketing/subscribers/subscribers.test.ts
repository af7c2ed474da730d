import { describe, expect, it } from 'vitest';
import {
  countOf,
  defaultListId,
  keyOf,
  makeList,
  makeSubscriber,
  marketingClient,
  marketingTestBed,
} from '../marketing.test-support.ts';
import { isSuppressed } from './subscribers.service.ts';

const { t, a, call } = marketingTestBed();

describe('creating and changing subscribers', () => {
  it('creates a subscriber on the default list and on the named list, raising both counters', async () => {
    const list = await makeList(call, 'Patients');
    const all = await defaultListId(call);
    const res = await call('POST', '/subscribers', {
      subscriber: { email: 'Ada@Example.org', first_name: 'Ada', last_name: 'Lovelace' },
      subscription_list_id: list,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        id: expect.any(String),
        type: 'subscriber',
        attributes: {
          email: 'Ada@Example.org',
          unsubscribed: false,
          first_name: 'Ada',
          last_name: 'Lovelace',
          full_name: 'Ada Lovelace',
          created_at: expect.any(String),
        },
      },
    });
    expect(await countOf(call, list)).toBe(1);
    expect(await countOf(call, all)).toBe(1);
  });

  it('refuses an email already present, in any letter case, with 409 naming the existing subscriber', async () => {
    const id = await makeSubscriber(call, 'dup@example.org');
    const res = await call('POST', '/subscribers', { subscriber: { email: 'DUP@example.org' } });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error_code: 'marketing.subscriber_exists', subscriber_id: id });
  });

  it('refuses an invalid or missing email with 400', async () => {
    const bad = await call('POST', '/subscribers', { subscriber: { email: 'not-an-address' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      error_code: 'marketing.invalid_email',
      fields: [{ field: 'subscriber.email' }],
    });
    expect((await call('POST', '/subscribers', { subscriber: { first_name: 'X' } })).json().message).toBe(
      'subscriber.email is required',
    );
  });

  it('refuses an unknown list with 404 and writes nothing', async () => {
    const res = await call('POST', '/subscribers', {
      subscriber: { email: 'nolist@example.org' },
      subscription_list_id: '999999',
    });
    expect(res.statusCode).toBe(404);
    expect((await call('GET', '/subscribers?search=nolist')).json().data).toEqual([]);
  });

  it('changes email, phone number and names, answering the short form', async () => {
    const id = await makeSubscriber(call, 'old@example.org', { first_name: 'Old' });
    const res = await call('PATCH', `/subscribers/${id}`, {
      subscriber: {
        email: 'new@example.org',
        phone_number: '+1 (415) 555-0100',
        first_name: 'New',
        last_name: 'Name',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.attributes).toEqual({
      email: 'new@example.org',
      unsubscribed: false,
      first_name: 'New',
      last_name: 'Name',
      full_name: 'New Name',
      created_at: expect.any(String),
    });
    expect((await call('GET', `/subscribers/${id}`)).json().data.attributes.phone_number).toBe(
      '+14155550100',
    );
  });

  it("refuses a change to another subscriber's email with 409 and an unknown subscriber with 404", async () => {
    await makeSubscriber(call, 'taken@example.org');
    const id = await makeSubscriber(call, 'mover@example.org');
    expect(
      (await call('PATCH', `/subscribers/${id}`, { subscriber: { email: 'Taken@example.org' } })).statusCode,
    ).toBe(409);
    expect((await call('PATCH', `/subscribers/${id}`, { subscriber: { email: 'bad' } })).statusCode).toBe(
      400,
    );
    expect(
      (await call('PATCH', '/subscribers/999999', { subscriber: { first_name: 'X' } })).json().error_code,
    ).toBe('marketing.subscriber_not_found');
  });
});

describe('reading one subscriber', () => {
  it('answers every attribute: times, custom fields and lists', async () => {
    const list = await makeList(call, 'Readers');
    const id = await makeSubscriber(
      call,
      'full@example.org',
      { first_name: 'Full', custom_fields: [{ name: 'Plan', value: 'gold' }] },
      list,
    );
    const res = await call('GET', `/subscribers/${id}`);
    expect(res.statusCode).toBe(200);
    const attrs = res.json().data.attributes;
    expect(attrs).toMatchObject({
      email: 'full@example.org',
      first_name: 'Full',
      last_name: null,
      unsubscribed: false,
      phone_number: null,
    });
    expect(new Date(attrs.created_at).toISOString()).toBe(attrs.created_at);
    expect(attrs.custom_fields).toEqual([
      {
        subscriber_custom_field_type_id: expect.any(String),
        custom_field_name: 'Plan',
        custom_field_value: 'gold',
        name: 'Plan',
        value: 'gold',
      },
    ]);
    expect(attrs.subscription_lists).toEqual([
      {
        id: Number(await defaultListId(call)),
        uuid: expect.any(String),
        name: 'All contacts',
        unsubscribed: false,
      },
      { id: Number(list), uuid: expect.any(String), name: 'Readers', unsubscribed: false },
    ]);
    expect(attrs.statistics).toBeUndefined();
  });

  it('adds the campaign counters with with_stats=true', async () => {
    const id = await makeSubscriber(call, 'stats@example.org');
    const res = await call('GET', `/subscribers/${id}?with_stats=true`);
    expect(res.json().data.attributes.statistics).toEqual({
      deliveries: 0,
      delivered: 0,
      opened: 0,
      clicked: 0,
      soft_bounced: 0,
      hard_bounced: 0,
      unsubscribed: 0,
      global_unsubscribed: 0,
    });
  });

  it("answers 404 for another account's subscriber and for a malformed id", async () => {
    const other = marketingClient(t, await t.createAccount());
    const theirs = await makeSubscriber(other, 'theirs@example.org');
    expect((await call('GET', `/subscribers/${theirs}`)).statusCode).toBe(404);
    expect((await call('GET', '/subscribers/x1')).statusCode).toBe(404);
  });
});

describe('subscribing and unsubscribing', () => {
  it('unsubscribes from one list, shown on the membership, and subscribes again', async () => {
    const list = await makeList(call, 'Weekly');
    const id = await makeSubscriber(call, 'member@example.org', {}, list);
    const off = await call('POST', `/subscribers/${id}/unsubscribe`, { subscription_list_id: list });
    expect(off.statusCode).toBe(200);
    expect(
      off.json().data.attributes.subscription_lists.find((l: { id: number }) => String(l.id) === list)
        .unsubscribed,
    ).toBe(true);
    expect(off.json().data.attributes.unsubscribed).toBe(false);
    expect(
      await isSuppressed(
        t.ctx,
        a.account.customer_id,
        'MEMBER@example.org',
        await keyOf(t, 'subscription_lists', list),
      ),
    ).toBe(true);
    expect(await isSuppressed(t.ctx, a.account.customer_id, 'member@example.org')).toBe(false);
    const on = await call('POST', `/subscribers/${id}/subscribe`, { subscription_list_id: list });
    expect(
      on.json().data.attributes.subscription_lists.find((l: { id: number }) => String(l.id) === list)
        .unsubscribed,
    ).toBe(false);
    expect(await countOf(call, list)).toBe(1);
  });

  it('subscribing to a list the subscriber is not on adds it and raises the counter', async () => {
    const list = await makeList(call, 'Later');
    const id = await makeSubscriber(call, 'joiner@example.org');
    const res = await call('POST', `/subscribers/${id}/subscribe`, { subscription_list_id: list });
    expect(res.statusCode).toBe(200);
    expect(await countOf(call, list)).toBe(1);
    expect(
      (
        await call('POST', `/subscribers/${id}/unsubscribe`, {
          subscription_list_id: await makeList(call, 'Never joined'),
        })
      ).json().error_code,
    ).toBe('marketing.not_a_member');
  });

  it('unsubscribes globally without a list (an empty body), which suppresses every send', async () => {
    const id = await makeSubscriber(call, 'global@example.org');
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/marketing/${a.account.username}/subscribers/${id}/unsubscribe`,
      headers: { authorization: `Token token=${a.key}`, 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.attributes.unsubscribed).toBe(true);
    expect(await isSuppressed(t.ctx, a.account.customer_id, 'global@example.org')).toBe(true);
    expect((await call('POST', `/subscribers/${id}/subscribe`, {})).json().data.attributes.unsubscribed).toBe(
      false,
    );
    expect(await isSuppressed(t.ctx, a.account.customer_id, 'global@example.org')).toBe(false);
    expect(await isSuppressed(t.ctx, a.account.customer_id, 'nobody@example.org')).toBe(false);
  });
});
