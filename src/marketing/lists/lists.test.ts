import { describe, expect, it } from 'vitest';
import {
  countOf,
  defaultListId,
  makeList,
  makeSubscriber,
  marketingClient,
  marketingTestBed,
  UUID_PATTERN,
} from '../marketing.test-support.ts';

const { t, a, call } = marketingTestBed();

describe('subscription lists', () => {
  it('creates the default list (all contacts) on first use', async () => {
    const res = await call('GET', '/subscription_lists');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: [
        {
          id: expect.any(Number),
          uuid: expect.stringMatching(UUID_PATTERN),
          type: 'subscription_list',
          attributes: {
            name: 'All contacts',
            is_default: true,
            subscriber_count: 0,
            form_id: null,
            double_opt_in: false,
            public: false,
          },
        },
      ],
    });
  });

  it('creates a list and answers it in the envelope', async () => {
    const res = await call('POST', '/subscription_lists', { name: 'Newsletter' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      type: 'subscription_list',
      attributes: {
        name: 'Newsletter',
        is_default: false,
        subscriber_count: 0,
        form_id: null,
        double_opt_in: false,
        public: false,
      },
    });
    const listed = (await call('GET', '/subscription_lists'))
      .json()
      .data.map((l: { attributes: { name: string } }) => l.attributes.name);
    expect(listed).toEqual(['All contacts', 'Newsletter']);
  });

  it.each(['default', 'DEFAULT', ' Default '])('refuses the name %j with 400', async (name) => {
    const res = await call('POST', '/subscription_lists', { name });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error_code: 'marketing.list_name_invalid', errors: [{ code: 400 }] });
  });

  it('refuses a missing or blank name with 400', async () => {
    expect((await call('POST', '/subscription_lists', {})).json()).toMatchObject({
      error_code: 'request.invalid',
      message: 'name is required',
    });
    expect((await call('POST', '/subscription_lists', { name: '   ' })).statusCode).toBe(400);
  });

  it('renames a list by an id sent as a string', async () => {
    const id = await makeList(call, 'Old name');
    const res = await call('PATCH', `/subscription_lists/${id}`, { name: 'New name' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: Number(id), attributes: { name: 'New name' } });
    expect((await call('PATCH', `/subscription_lists/${id}`, { name: 'default' })).statusCode).toBe(400);
  });

  it('refuses to rename or delete the default list with 409', async () => {
    const id = await defaultListId(call);
    expect((await call('PATCH', `/subscription_lists/${id}`, { name: 'Everyone' })).json()).toMatchObject({
      error_code: 'marketing.default_list_locked',
      errors: [{ code: 409 }],
    });
    expect((await call('DELETE', `/subscription_lists/${id}`)).statusCode).toBe(409);
  });

  it('deletes a list with an empty object, keeping its subscribers and lowering nothing else', async () => {
    const id = await makeList(call, 'Short-lived');
    const sub = await makeSubscriber(call, 'stays@example.org', {}, id);
    const all = await defaultListId(call);
    const before = await countOf(call, all);
    const res = await call('DELETE', `/subscription_lists/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    expect(await countOf(call, id)).toBe(-1);
    expect(await countOf(call, all)).toBe(before);
    const one = (await call('GET', `/subscribers/${sub}`)).json().data;
    expect(one.attributes.subscription_lists.map((l: { id: number }) => l.id)).toEqual([Number(all)]);
    expect((await call('DELETE', `/subscription_lists/${id}`)).statusCode).toBe(404);
  });

  it("answers 404 for an unknown, malformed or other account's list", async () => {
    const other = await t.createAccount();
    const theirs = await makeList(marketingClient(t, other), 'Theirs');
    for (const id of [theirs, '999999', 'abc', '0']) {
      const res = await call('PATCH', `/subscription_lists/${id}`, { name: 'Mine now' });
      expect(res.statusCode, id).toBe(404);
      expect(res.json().error_code).toBe('marketing.list_not_found');
    }
    expect((await call('DELETE', `/subscription_lists/${theirs}`)).statusCode).toBe(404);
  });

  it('shows the form that feeds a list as form_id', async () => {
    const id = await makeList(call, 'From the form');
    const form = await t.app.inject({
      method: 'POST',
      url: '/v1/forms/api/forms',
      headers: a.auth,
      payload: { title: 'Join', type: 'marketing_form', subscription_list_id: id, form_json: { body: [] } },
    });
    expect(form.statusCode).toBeLessThan(300);
    const list = (await call('GET', '/subscription_lists'))
      .json()
      .data.find((l: { id: number }) => l.id === Number(id));
    expect(list.attributes.form_id).toEqual(expect.any(String));
  });
});

describe('marketing authentication and prefixes', () => {
  it('serves the bare prefix with a Bearer key, taking the account from the key', async () => {
    const bare = marketingClient(t, a, { bare: true, bearer: true });
    const res = await bare('GET', '/subscription_lists');
    expect(res.statusCode).toBe(200);
    expect(res.json().data[0].attributes.is_default).toBe(true);
  });

  it("answers 403 for another account's username in the path", async () => {
    const other = await t.createAccount();
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/marketing/${other.account.username}/subscription_lists`,
      headers: { authorization: `Token token=${a.key}` },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error_code).toBe('auth.forbidden');
  });

  it('answers 404 for a path that is no marketing operation', async () => {
    expect((await call('GET', '/subscription_lists/1/no_such_operation')).statusCode).toBe(404);
  });

  it('answers 401 for a key without the marketing scope, and for no key', async () => {
    const emailOnly = await t.createAccount({ scopes: 'email' });
    const res = await marketingClient(t, emailOnly)('GET', '/subscription_lists');
    expect(res.statusCode).toBe(401);
    expect(res.json().error_code).toBe('auth.scope');
    expect((await t.app.inject({ method: 'GET', url: '/v1/marketing/subscribers' })).statusCode).toBe(401);
  });
});
