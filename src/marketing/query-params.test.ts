/**
 * No documented query parameter of a marketing read is ignored: for every GET operation in the OpenAPI document, each
 * query parameter, given valid values, either changes the answer or is refused with 400 naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openScenario, type ScenarioApp } from './analytics/analytics-scenario.test-support.ts';
import { makeList, makeSubscriber } from './marketing.test-support.ts';
import { branchingGraph, makeDrip, storeMailing } from './drips/drips.test-support.ts';
import { runExport } from './exports/exports.service.ts';
import { seedDelivery } from './analytics/analytics.test-support.ts';

interface Param {
  name: string;
  in: string;
  required?: boolean;
  schema?: { enum?: string[]; anyOf?: { const?: string; enum?: string[] }[] };
}

let f: ScenarioApp;
let ids: Record<string, string[]>;
/** Path parameters of the operations that have them (another row of each kind exists, so filters can differ). */
let paths: Record<string, string>;

beforeAll(async () => {
  f = await openScenario();
  const { call, s } = f;
  // Two of everything, named against their creation order, so that ordering, paging and filters show.
  const zeta = await makeList(call, 'Zeta clinic');
  const alpha = await makeList(call, 'Alpha clinic');
  await makeSubscriber(call, 'zoe@params.example', { first_name: 'Zoe' }, zeta);
  await makeSubscriber(call, 'abe@params.example', { first_name: 'Abe' }, alpha);
  await makeSubscriber(call, 'amy@params.example', { first_name: 'Amy' }, alpha);
  for (const [name, first] of [
    ['Zed people', 'Zoe'],
    ['Able people', 'Abe'],
  ])
    await call('POST', '/dynamic_lists', {
      name,
      filters: [[{ field: 'first_name', op: 'is', terms: [first] }]],
    });
  const mailings = await Promise.all(
    ['A', 'B', 'C'].map((m) => storeMailing(f.t, f.a.account.customer_id, m)),
  );
  for (const name of ['Zulu welcome', 'Alpha welcome'])
    await makeDrip(call, {
      name,
      subscription_list_id: alpha,
      drip_campaign_nodes: branchingGraph(mailings[0]!, mailings[1]!, mailings[2]!, { days: 2 }, 'opened'),
    });
  const job = async (list: string) => {
    const started = (await call('POST', '/subscribers_export_csv', { subscription_list_id: list })).json()
      .data;
    await runExport(f.t.ctx, Number(started.id));
    return started as { id: string; download_key: string };
  };
  // A late delivery to an early address, so the deliveries' orders by time and by recipient differ.
  await seedDelivery(f.t.ctx.database.db, f.a.account.customer_id, {
    sendId: s.springSend,
    mailingId: s.springMailing,
    subscriberId: null,
    email: 'aaron@params.example',
    created_at: 11_900,
  });
  const exported = await job(zeta);
  await job(alpha);
  ids = {
    subscription_list_id: [alpha, zeta],
    dynamic_list_id: [(await call('GET', '/dynamic_lists?search=Able')).json().data[0].id],
    campaign_mailing_send_id: [String(s.springSend), String(s.fluSend)],
    campaign_mailing_id: [String(s.springMailing), String(s.fluMailing)],
    campaign_mailing_delivery_id: [s.deliveries.alice],
    key: [exported.download_key],
    html_id: ['0', '1'],
  };
  paths = {
    '{id}': s.subscribers.alice,
    'bulk_jobs/{id}': `bulk_jobs/${exported.id}`,
  };
});
afterAll(() => f.t.close());

/** Valid values to try for a parameter; ids come from the data written above. */
function candidates(p: Param): string[] {
  const listed = p.schema?.enum ?? p.schema?.anyOf?.flatMap((a) => a.enum ?? (a.const ? [a.const] : []));
  if (listed?.length) return listed;
  if (ids[p.name]) return ids[p.name]!;
  const byName: Record<string, string[]> = {
    page: ['2'],
    items: ['1'],
    use_pagination: ['true', 'false'],
    pagination: ['true', 'false'],
    with_stats: ['true'],
    search: ['zzqx', 'Alpha', 'Spring'],
    order: ['asc', 'desc'],
    order_by: ['name', 'email', 'subject', 'created_at', 'updated_at', 'sent_at', 'clicked_count', 'html_id'],
    filters: [JSON.stringify([[{ field: 'first_name', op: 'is', terms: ['Abe'] }]])],
    template_type: ['html', 'text', 'marketing', 'drip'],
    tracking_link_id: ['0', '1'],
  };
  return byName[p.name] ?? [];
}

// Reads whose side effects or required inputs put them outside this walk, each with its reason.
const SKIPPED: Record<string, string> = {
  '/campaign_mailings/{id}/send_test_email': 'sends mail; its one parameter is required',
};

// Operations that need one of several parameters, with the one their walk starts from.
const BASES: Record<string, Record<string, string>> = {
  // Every link; html_id then narrows it to one.
  '/analytics/subscribers_by_tracking_link': { tracking_link_id: '0' },
};

const url = (path: string, q: Record<string, string>) => {
  const query = new URLSearchParams(q).toString();
  return query ? `${path}?${query}` : path;
};

/**
 * The answer without optional parameters. Required ones get their first value; when the operation still asks for one
 * of several (a send or a delivery, say), the first id parameter that makes it answer joins the base.
 */
async function baselineOf(path: string, query: Param[]) {
  const base: Record<string, string> = {
    ...Object.fromEntries(query.filter((p) => p.required).map((p) => [p.name, candidates(p)[0]!])),
    ...BASES[path],
  };
  let baseline = await f.call('GET', url(path, base));
  for (const p of query) {
    if (baseline.statusCode === 200 || base[p.name] !== undefined || !ids[p.name]) continue;
    const tried = await f.call('GET', url(path, { ...base, [p.name]: ids[p.name]![0]! }));
    if (tried.statusCode === 200) {
      base[p.name] = ids[p.name]![0]!;
      baseline = tried;
    }
  }
  expect(baseline.statusCode, `${path}: ${baseline.body}`).toBe(200);
  return { base, baseline };
}

/** The parameter that turns paging on, for operations that answer everything unless asked. */
function pagingOn(query: Param[]): Record<string, string> {
  const flag = query.find((p) => p.name === 'use_pagination' || p.name === 'pagination');
  return flag ? { [flag.name]: 'true' } : {};
}

describe('documented query parameters of marketing reads', () => {
  it('each changes the answer or is refused', async () => {
    const doc = (await f.t.app.inject('/openapi.json')).json() as {
      paths: Record<string, { get?: { parameters?: Param[] } }>;
    };
    const prefix = '/v1/marketing/{username}';
    const ignored: string[] = [];
    let walked = 0;
    for (const [docPath, ops] of Object.entries(doc.paths)) {
      const query = (ops.get?.parameters ?? []).filter((p) => p.in === 'query');
      if (!docPath.startsWith(`${prefix}/`) || query.length === 0) continue;
      const path = docPath.slice(prefix.length);
      if (SKIPPED[path]) continue;
      const concrete = path.replace(/(bulk_jobs\/)?\{id\}/, (m) => paths[m] ?? paths['{id}']!);
      const { base, baseline } = await baselineOf(concrete, query);
      for (const p of query.filter((q) => base[q.name] === undefined)) {
        walked++;
        // Paging parameters act on a paged answer, and the paging switch on a page shorter than everything.
        const paged = ['page', 'items'].includes(p.name)
          ? pagingOn(query)
          : ['pagination', 'use_pagination'].includes(p.name)
            ? { items: '1' }
            : {};
        const before = Object.keys(paged).length
          ? await f.call('GET', url(concrete, { ...base, ...paged }))
          : baseline;
        const tried = await Promise.all(
          candidates(p).map(async (v) => {
            const res = await f.call('GET', url(concrete, { ...base, ...paged, [p.name]: v }));
            return { v, status: res.statusCode, body: res.body };
          }),
        );
        // A value refused for its own sake (400) shows nothing about the others.
        const changed = tried.some(
          (r) =>
            r.status !== 400 && r.status < 500 && (r.status !== before.statusCode || r.body !== before.body),
        );
        const refused = tried.length > 0 && tried.every((r) => r.status === 400 && r.body.includes(p.name));
        if (!changed && !refused)
          ignored.push(
            `${path} ${p.name} (${tried.map((r) => `${r.v}→${r.status}`).join(', ') || 'no values'})`,
          );
      }
    }
    expect(walked).toBeGreaterThan(60);
    expect(ignored).toEqual([]);
  });
});
