import { describe, expect, it } from 'vitest';
import { createForm } from '../../forms/forms.test-support.ts';
import { defaultListId, makeList, marketingClient } from '../marketing.test-support.ts';
import { dripApiTestBed, makeDrip } from './drips.test-support.ts';

const { t, a, call, mailings, d, graphWith } = dripApiTestBed();

describe('drip campaign create and read', () => {
  it('creates a draft with the graph fields and reads it back by a numeric id', async () => {
    const res = await call('POST', '/drip_campaigns', {
      drip_campaign: {
        name: 'Onboarding',
        subscription_list_id: d.list,
        start_trigger: 'subscription',
        drip_campaign_nodes: d.graph,
      },
    });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      id: expect.any(String),
      type: 'drip_campaign',
      attributes: {
        name: 'Onboarding',
        subscription_list_id: Number(d.list),
        subscription_list_name: 'Welcome list',
        state: 'draft',
        start_trigger: 'subscription',
        subscriber_count: 0,
        subscriber_completed_count: 0,
      },
    });
    expect(JSON.parse(data.attributes.drip_campaign_nodes)).toEqual(JSON.parse(d.graph));
    expect(JSON.parse(data.attributes.drip_campaign_tree_blob)).toMatchObject({
      root: 'start',
      nodes: {
        start: { type: 'start', next: 'welcome' },
        check: { type: 'condition', yes: 'engaged', no: 'nudge' },
        end: { type: 'end', next: null },
      },
    });
    const one = await call('GET', `/drip_campaigns/${data.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json().data).toEqual(data);
  });

  it('puts a drip without a list on the default list and accepts an empty graph for a draft', async () => {
    const res = await call('POST', '/drip_campaigns', {
      drip_campaign: { name: 'Later', drip_campaign_nodes: '{"nodes": [], "edges": []}' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.attributes).toMatchObject({
      subscription_list_id: Number(await defaultListId(call)),
      state: 'draft',
      start_trigger: 'subscription',
    });
  });

  it('takes subscription_created as another name of the subscription trigger', async () => {
    const res = await call('POST', '/drip_campaigns', {
      drip_campaign: { name: 'Alias', start_trigger: 'subscription_created' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.attributes.start_trigger).toBe('subscription');
    expect(
      (await call('POST', '/drip_campaigns', { drip_campaign: { name: 'Bad', start_trigger: 'birthday' } }))
        .statusCode,
    ).toBe(422);
  });

  it('refuses a missing name with 400 and an unknown list with 404, creating nothing', async () => {
    const before = (await call('GET', '/drip_campaigns?items=1000')).json().data.length;
    expect(
      (await call('POST', '/drip_campaigns', { drip_campaign: { drip_campaign_nodes: d.graph } })).statusCode,
    ).toBe(400);
    expect((await call('POST', '/drip_campaigns', { drip_campaign: { name: '  ' } })).statusCode).toBe(400);
    const res = await call('POST', '/drip_campaigns', {
      drip_campaign: { name: 'X', subscription_list_id: '999999' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().error_code).toBe('marketing.list_not_found');
    expect((await call('GET', '/drip_campaigns?items=1000')).json().data).toHaveLength(before);
  });

  it("answers 404 for an unknown, malformed or other account's drip", async () => {
    const other = await t.createAccount();
    const theirs = await makeDrip(marketingClient(t, other), { name: 'Theirs' });
    for (const id of [theirs, '999999', 'abc']) {
      const res = await call('GET', `/drip_campaigns/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.json().error_code).toBe('marketing.drip_not_found');
    }
    expect((await call('POST', `/drip_campaigns/${theirs}/start`)).statusCode).toBe(404);
  });

  it('serves the bare prefix with a Bearer key too', async () => {
    const bare = marketingClient(t, a, { bare: true, bearer: true });
    const id = await makeDrip(bare, { name: 'Bare' });
    expect((await call('GET', `/drip_campaigns/${id}`)).json().data.attributes.name).toBe('Bare');
  });
});

describe('drip graph validation', () => {
  const cases: [string, () => string, RegExp][] = [
    ['text that is not JSON', () => '{nodes', /not valid JSON/],
    ['a document without edges', () => '{"nodes": []}', /"edges" array/],
    [
      'an unknown node type',
      () => graphWith('pause', { id: 'pause', type: 'sms' }),
      /node "pause": unknown node type "sms"/,
    ],
    ['no start node', () => graphWith('start', null, [{ from: 'welcome', to: 'end' }]), /no start node/],
    ['two start nodes', () => graphWith('pause', { id: 'pause', type: 'start' }), /2 start nodes/],
    [
      'a duplicated node id',
      () => graphWith('nudge', { id: 'engaged', type: 'end' }),
      /node "engaged": the id is used by more than one node/,
    ],
    [
      'a dangling edge',
      () =>
        JSON.stringify({
          ...JSON.parse(d.graph),
          edges: [...JSON.parse(d.graph).edges.slice(0, 6), { from: 'nudge', to: 'nowhere' }],
        }),
      /node "nudge": an edge leads to "nowhere", which is not a node/,
    ],
    [
      'a cycle',
      () =>
        JSON.stringify({
          nodes: [
            { id: 's', type: 'start' },
            { id: 'm', type: 'email', campaign_mailing_id: mailings[0] },
            { id: 'w', type: 'wait', duration: { hours: 1 } },
          ],
          edges: [
            { from: 's', to: 'm' },
            { from: 'm', to: 'w' },
            { from: 'w', to: 'm' },
          ],
        }),
      /cycle/,
    ],
    [
      'a condition without its no branch',
      () =>
        JSON.stringify({
          ...JSON.parse(d.graph),
          edges: JSON.parse(d.graph).edges.filter((e: { branch?: string }) => e.branch !== 'no'),
        }),
      /node "check": a condition needs exactly one "yes" edge and one "no" edge/,
    ],
    [
      'an email naming a mailing of no one',
      () => graphWith('nudge', { id: 'nudge', type: 'email', campaign_mailing_id: '999999' }),
      /node "nudge": campaign mailing 999999/,
    ],
    [
      'a wait of zero',
      () => graphWith('pause', { id: 'pause', type: 'wait', duration: { days: 0 } }),
      /node "pause": the wait must be longer than zero/,
    ],
    [
      'a wait with an unknown unit',
      () => graphWith('pause', { id: 'pause', type: 'wait', duration: { fortnights: 1 } }),
      /unknown duration unit/,
    ],
    [
      'a malformed ISO duration',
      () => graphWith('pause', { id: 'pause', type: 'wait', duration: 'P2X' }),
      /not an ISO 8601 duration/,
    ],
    [
      'a condition of an unknown kind',
      () => graphWith('check', { id: 'check', type: 'condition', condition: 'bounced' }),
      /"opened" or "clicked"/,
    ],
    [
      'a condition before any email',
      () =>
        JSON.stringify({
          nodes: [
            { id: 's', type: 'start' },
            { id: 'c', type: 'condition', condition: 'opened' },
            { id: 'e', type: 'end' },
          ],
          edges: [
            { from: 's', to: 'c' },
            { from: 'c', to: 'e', branch: 'yes' },
            { from: 'c', to: 'e', branch: 'no' },
          ],
        }),
      /node "c": a condition must follow an email step/,
    ],
    [
      'a node without an outgoing edge',
      () => JSON.stringify({ nodes: [{ id: 's', type: 'start' }], edges: [] }),
      /node "s": a start node needs an outgoing edge/,
    ],
    [
      'an unreachable node',
      () =>
        JSON.stringify({
          ...JSON.parse(d.graph),
          nodes: [...JSON.parse(d.graph).nodes, { id: 'orphan', type: 'end' }],
        }),
      /node "orphan": the node cannot be reached/,
    ],
    [
      'a start trigger that does not match the field',
      () => graphWith('start', { id: 'start', type: 'start', trigger: 'form_submission', form_id: 'f' }),
      /node "start": start_trigger "subscription" does not match/,
    ],
  ];

  it.each(cases)('refuses %s with 422 naming the problem, creating nothing', async (_, make, message) => {
    const before = (await call('GET', '/drip_campaigns?items=1000')).json().data.length;
    const res = await call('POST', '/drip_campaigns', {
      drip_campaign: {
        name: 'Broken',
        subscription_list_id: d.list,
        start_trigger: 'subscription',
        drip_campaign_nodes: make(),
      },
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ error_code: 'marketing.drip_invalid', errors: [{ code: 422 }] });
    expect(res.json().message).toMatch(message);
    expect((await call('GET', '/drip_campaigns?items=1000')).json().data).toHaveLength(before);
  });

  it('accepts ISO 8601 waits and edges written as source/target', async () => {
    const g = JSON.parse(graphWith('pause', { id: 'pause', type: 'wait', duration: 'P1DT12H' }));
    g.edges = g.edges.map((e: { from: string; to: string; branch?: string }) => ({
      source: e.from,
      target: e.to,
      ...(e.branch && { branch: e.branch }),
    }));
    const res = await call('POST', '/drip_campaigns', {
      drip_campaign: { name: 'ISO', drip_campaign_nodes: JSON.stringify(g) },
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('refuses to start a drip without a graph with 422', async () => {
    const id = await makeDrip(call, { name: 'Empty' });
    const res = await call('POST', `/drip_campaigns/${id}/start`);
    expect(res.statusCode).toBe(422);
    expect((await call('GET', `/drip_campaigns/${id}`)).json().data.attributes.state).toBe('draft');
  });

  it('takes a form_submission drip onto the list its form feeds, and refuses a form that feeds no list', async () => {
    const formList = await makeList(call, 'Form list');
    const form = await createForm(t.app, a.auth, { type: 'marketing_form', subscription_list_id: formList });
    const plain = await createForm(t.app, a.auth);
    const start = (formId: string) =>
      graphWith('start', { id: 'start', type: 'start', trigger: 'form_submission', form_id: formId });
    const res = await call('POST', '/drip_campaigns', {
      drip_campaign: { name: 'From the form', drip_campaign_nodes: start(form) },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.attributes).toMatchObject({
      start_trigger: 'form_submission',
      subscription_list_id: Number(formList),
    });
    const refused = await call('POST', '/drip_campaigns', {
      drip_campaign: { name: 'Plain form', drip_campaign_nodes: start(plain) },
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().message).toMatch(/does not feed a subscription list/);
    const otherList = await call('POST', '/drip_campaigns', {
      drip_campaign: { name: 'Wrong list', subscription_list_id: d.list, drip_campaign_nodes: start(form) },
    });
    expect(otherList.statusCode).toBe(422);
  });
});
