/** The list indexes (`/lists`, `/subscription_lists`, `/dynamic_lists`) search on the name and sort as asked. */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeList, makeSubscriber, marketingTestBed, refusesParameter } from '../marketing.test-support.ts';

const { call } = marketingTestBed();
const names = (res: { json: () => { data: { attributes: { name: string } }[] } }) =>
  res.json().data.map((l) => l.attributes.name);

beforeAll(async () => {
  const clinic = await makeList(call, 'Clinic news');
  await makeList(call, 'ALPHA patients');
  await makeList(call, 'zeta_%');
  await makeSubscriber(call, 'one@lists.example', {}, clinic);
  await makeSubscriber(call, 'two@lists.example');
  for (const name of ['Clinic regulars', 'Bravo segment'])
    await call('POST', '/dynamic_lists', {
      name,
      filters: [[{ field: 'email', op: 'contains', terms: ['x'] }]],
    });
});

describe('GET /subscription_lists', () => {
  it('keeps the default list first, then oldest first, when no sort is asked', async () => {
    expect(names(await call('GET', '/subscription_lists'))).toEqual([
      'All contacts',
      'Clinic news',
      'ALPHA patients',
      'zeta_%',
    ]);
  });

  it('finds lists whose name contains the search, letter case ignored, wildcards taken literally', async () => {
    expect(names(await call('GET', '/subscription_lists?search=CLINIC'))).toEqual(['Clinic news']);
    expect(names(await call('GET', '/subscription_lists?search=_%25'))).toEqual(['zeta_%']);
    const page = await call('GET', '/subscription_lists?search=a&use_pagination=true&items=1');
    expect(page.json().total_count).toBe(3);
  });

  it('sorts by name, ignoring letter case, in either direction', async () => {
    expect(names(await call('GET', '/subscription_lists?order_by=name&order=asc'))).toEqual([
      'All contacts',
      'ALPHA patients',
      'Clinic news',
      'zeta_%',
    ]);
    expect(names(await call('GET', '/subscription_lists?order_by=name'))).toEqual([
      'zeta_%',
      'Clinic news',
      'ALPHA patients',
      'All contacts',
    ]);
  });

  it('sorts by the member counter, and by creation when only a direction is given', async () => {
    expect(names(await call('GET', '/subscription_lists?order_by=subscriber_count'))[0]).toBe('All contacts');
    expect(names(await call('GET', '/subscription_lists?order=desc'))).toEqual([
      'zeta_%',
      'ALPHA patients',
      'Clinic news',
      'All contacts',
    ]);
  });

  it('refuses an unknown sort key or direction with 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['order_by=colour', 'order_by'],
      ['order=up', 'order'],
    ] as const) {
      const res = await call('GET', `/subscription_lists?${query}`);
      expect(refusesParameter(res, field), res.body).toBe(true);
    }
  });
});

describe('GET /dynamic_lists', () => {
  it('searches and sorts dynamic lists', async () => {
    expect(names(await call('GET', '/dynamic_lists?search=regular'))).toEqual(['Clinic regulars']);
    expect(names(await call('GET', '/dynamic_lists?order_by=name&order=asc'))).toEqual([
      'Bravo segment',
      'Clinic regulars',
    ]);
    const res = await call('GET', '/dynamic_lists?order_by=subscriber_count');
    expect(refusesParameter(res, 'order_by')).toBe(true);
  });
});

describe('GET /lists', () => {
  it('searches both kinds of list and sorts them together', async () => {
    expect(names(await call('GET', '/lists?search=clinic'))).toEqual(['Clinic news', 'Clinic regulars']);
    expect(names(await call('GET', '/lists?order_by=name&order=asc'))).toEqual([
      'All contacts',
      'ALPHA patients',
      'Bravo segment',
      'Clinic news',
      'Clinic regulars',
      'zeta_%',
    ]);
    expect(names(await call('GET', '/lists?order=desc'))[0]).toBe('Bravo segment');
    const page = await call('GET', '/lists?search=clinic&use_pagination=true&items=1&page=2');
    expect([names(page), page.json().total_count]).toEqual([['Clinic regulars'], 2]);
    expect(refusesParameter(await call('GET', '/lists?order_by=subscriber_count'), 'order_by')).toBe(true);
  });
});
