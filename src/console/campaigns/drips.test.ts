/** Drip pages over HTTP: a viewer sees the graph but cannot start or pause; an editor starts through the drip service. */
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestBed } from '../console.test-support.ts';
import { createList } from '../../marketing/lists/lists.service.ts';
import { createDrip, dripOf } from '../../marketing/drips/drips.service.ts';
import { branchingGraph, storeMailing } from '../../marketing/drips/drips.test-support.ts';
import { keyOf } from '../../marketing/marketing.test-support.ts';

const {
  t,
  a,
  clients: [editor, viewer],
} = consoleTestBed(['editor', 'viewer']);
let dripId: string;

beforeAll(async () => {
  const cid = a.account.customer_id;
  const m = [
    await storeMailing(t, cid, 'A'),
    await storeMailing(t, cid, 'B'),
    await storeMailing(t, cid, 'C'),
  ];
  const list = await createList(t.ctx, cid, 'Patients');
  dripId = (
    await createDrip(t.ctx, cid, {
      name: 'Welcome <series>',
      subscription_list_id: list.id,
      drip_campaign_nodes: branchingGraph(m[0]!, m[1]!, m[2]!),
    })
  ).id;
});

describe('drip pages', () => {
  it('lists drips and draws one without a form for a viewer', async () => {
    expect((await viewer.get('/console/campaigns/drips')).body).toContain('Welcome &lt;series&gt;');
    const res = await viewer.get(`/console/campaigns/drips/${dripId}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<svg');
    expect(res.body).toContain('Wait 2 days');
    expect(res.body).not.toContain('/start"');
    expect(res.body).not.toContain('style=');
  });

  it('refuses a start by a viewer and changes nothing', async () => {
    const res = await viewer.post(`/console/campaigns/drips/${dripId}/start`, { _csrf: viewer.csrf });
    expect(res.statusCode).toBe(403);
    expect((await dripOf(t.ctx, a.account.customer_id, dripId)).attributes.state).toBe('draft');
  });

  it('starts and pauses for an editor, and says why a second pause is refused', async () => {
    expect((await editor.get(`/console/campaigns/drips/${dripId}`)).body).toContain(
      `action="/console/campaigns/drips/${dripId}/start"`,
    );
    expect(
      (await editor.post(`/console/campaigns/drips/${dripId}/start`, { _csrf: editor.csrf })).statusCode,
    ).toBe(303);
    expect((await dripOf(t.ctx, a.account.customer_id, dripId)).attributes.state).toBe('active');
    // The older integer id still finds the drip; the page it leads back to is named by the UUID.
    const key = await keyOf(t, 'drip_campaigns', dripId);
    const paused = await editor.post(`/console/campaigns/drips/${key}/pause`, { _csrf: editor.csrf });
    expect(paused.headers.location).toBe(`/console/campaigns/drips/${dripId}`);
    expect((await dripOf(t.ctx, a.account.customer_id, dripId)).attributes.state).toBe('paused');
    const again = await editor.post(`/console/campaigns/drips/${dripId}/pause`, { _csrf: editor.csrf });
    expect(again.statusCode).toBe(303);
    expect((await editor.get(again.headers.location as string)).body).toContain('cannot be paused');
  });

  it('answers not found for another account or a malformed id', async () => {
    expect((await viewer.get('/console/campaigns/drips/999999')).statusCode).toBe(404);
    expect((await viewer.get('/console/campaigns/drips/x')).statusCode).toBe(404);
  });
});
