/** The subscriber filter builder of a list's page: the dynamic-list grammar as a plain form, and saving it as a dynamic list. */
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestBed } from '../console.test-support.ts';
import { createList } from '../../marketing/lists/lists.service.ts';
import { createSubscriber } from '../../marketing/subscribers/subscribers.service.ts';
import { dynamicListsOf } from '../../marketing/segments/segments.service.ts';

const {
  t,
  a,
  clients: [editor, viewer],
} = consoleTestBed(['editor', 'viewer']);
let page: string;

beforeAll(async () => {
  const cid = a.account.customer_id;
  const list = await createList(t.ctx, cid, 'Patients');
  for (const [email, first] of [
    ['ana@north.example', 'Ana'],
    ['bo@south.example', 'Bo'],
    ['cy@north.example', 'Cy'],
  ])
    await createSubscriber(t.ctx, cid, { email: email!, first_name: first! }, list.id);
  await createSubscriber(t.ctx, cid, { email: 'dee@north.example' });
  page = `/console/audiences/lists/${list.id}`;
});

const q = (rows: [string, string, string, string][], extra = '') =>
  `${page}?${rows
    .map(([g, f, o, v]) => new URLSearchParams({ f_group: g, f_field: f, f_op: o, f_terms: v }).toString())
    .join('&')}${extra}`;

describe('subscriber filters on a list page', () => {
  it('narrows the table by conditions of one group (all must match)', async () => {
    const body = (
      await viewer.get(
        q([
          ['1', 'email', 'ends_with', 'north.example'],
          ['1', 'first_name', 'is', 'Cy'],
        ]),
      )
    ).body;
    expect(body).toContain('cy@north.example');
    expect(body).not.toContain('ana@north.example');
    expect(body).not.toContain('bo@south.example');
  });

  it('matches any of two groups, only among the list', async () => {
    const body = (
      await viewer.get(
        q([
          ['1', 'first_name', 'is', 'Ana'],
          ['2', 'first_name', 'is', 'Bo'],
        ]),
      )
    ).body;
    expect(body).toContain('ana@north.example');
    expect(body).toContain('bo@south.example');
    expect(body).not.toContain('cy@north.example');
    expect(body).not.toContain('dee@north.example');
  });

  it('adds an empty row for a new condition or group without script', async () => {
    const one = (await viewer.get(q([['1', 'first_name', 'is', 'Ana']], '&add=group'))).body;
    expect(one.match(/name="f_field"/g)).toHaveLength(2);
    expect(one).toMatch(/id="f-group-1" name="f_group" value="2"/);
  });

  it('says why bad filters were not applied and shows the list unfiltered', async () => {
    const body = (await viewer.get(q([['1', 'created_at', 'before', 'soon']]))).body;
    expect(body).toContain('The filters were not applied');
    expect(body).toContain('is not a date');
    expect(body).toContain('ana@north.example');
  });

  it("saves the filters as a dynamic list of the list's members (editors only)", async () => {
    const res = await editor.get(q([['1', 'email', 'ends_with', 'north.example']]));
    const filters = /name="filters" value="([^"]+)"/.exec(res.body)![1]!.replace(/&quot;/g, '"');
    expect((await viewer.get(q([['1', 'email', 'ends_with', 'north.example']]))).body).not.toContain(
      'Save as dynamic list',
    );
    const refused = await viewer.post('/console/audiences/dynamic-lists', {
      _csrf: viewer.csrf,
      name: 'North',
      filters,
      back: page,
    });
    expect(refused.statusCode).toBe(403);
    const saved = await editor.post('/console/audiences/dynamic-lists', {
      _csrf: editor.csrf,
      name: 'North patients',
      filters,
      back: page,
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(page);
    const lists = await dynamicListsOf(t.ctx, a.account.customer_id, { with_stats: true });
    expect(lists.data.map((d) => [d.attributes.name, d.attributes.subscriber_count])).toEqual([
      ['North patients', 2],
    ]);
  });
});
