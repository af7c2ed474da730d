/** The audiences pages over HTTP: lists, subscribers, custom fields, subscriptions, export; a viewer changes nothing. */
import { describe, expect, it } from 'vitest';
import { consoleTestBed } from '../console.test-support.ts';
import { listsOf } from '../../marketing/lists/lists.service.ts';
import { subscribersOf } from '../../marketing/subscribers/subscribers.service.ts';
import { keyOf } from '../../marketing/marketing.test-support.ts';

const {
  t,
  a,
  clients: [editor, viewer],
} = consoleTestBed(['editor', 'viewer']);

const customer = () => a.account.customer_id;
const listNamed = async (name: string) =>
  (await listsOf(t.ctx, customer())).data.find((l) => l.attributes.name === name);

async function auditActions(): Promise<string[]> {
  const rows = await t.ctx.database.db
    .selectFrom('audit_log')
    .select('action')
    .where('customer_id', '=', customer())
    .execute();
  return rows.map((r) => r.action);
}

describe('console audiences', () => {
  it('creates, renames and deletes a list, each change in the audit trail', async () => {
    const created = await editor.post('/console/audiences/lists', { _csrf: editor.csrf, name: 'Patients' });
    expect(created.statusCode).toBe(303);
    const list = (await listNamed('Patients'))!;
    expect((await editor.get('/console/audiences')).body).toContain('Patients');
    await editor.post(`/console/audiences/lists/${list.id}/rename`, {
      _csrf: editor.csrf,
      name: 'Patients 2026',
    });
    expect(await listNamed('Patients 2026')).toBeDefined();
    await editor.post(`/console/audiences/lists/${list.id}/delete`, { _csrf: editor.csrf });
    expect(await listNamed('Patients 2026')).toBeUndefined();
    expect(await auditActions()).toEqual(
      expect.arrayContaining(['list.create', 'list.rename', 'list.delete']),
    );
  });

  it('refuses to delete the default list and says why', async () => {
    const def = (await listsOf(t.ctx, customer())).data.find((l) => l.attributes.is_default)!;
    const res = await editor.post(`/console/audiences/lists/${def.id}/delete`, { _csrf: editor.csrf });
    expect(res.headers.location).toBe('/console/audiences');
    expect((await editor.get('/console/audiences')).body).toContain('cannot be deleted');
    expect((await listsOf(t.ctx, customer())).data.some((l) => l.id === def.id)).toBe(true);
  });

  it('adds a subscriber, finds it by search and filters by status', async () => {
    await editor.post('/console/audiences/lists', { _csrf: editor.csrf, name: 'Search' });
    const list = (await listNamed('Search'))!;
    for (const [email, first] of [
      ['ana@example.org', 'Ana'],
      ['bo@example.org', 'Bo'],
    ])
      await editor.post(`/console/audiences/lists/${list.id}/subscribers`, {
        _csrf: editor.csrf,
        email: email!,
        first_name: first!,
      });
    const found = await editor.get(`/console/audiences/lists/${list.id}?q=ana`);
    expect(found.body).toContain('>ana@example.org</a>');
    expect(found.body).not.toContain('>bo@example.org</a>');
    const bo = (
      await subscribersOf(t.ctx, customer(), {
        items: 5,
        page: 1,
        search: 'bo',
        order_by: 'email',
        order: 'asc',
      })
    ).data[0]!;
    await editor.post(`/console/audiences/subscribers/${bo.id}/subscription`, {
      _csrf: editor.csrf,
      subscribed: 'no',
    });
    const unsub = await editor.get(`/console/audiences/lists/${list.id}?status=unsubscribed`);
    expect(unsub.body).toContain('>bo@example.org</a>');
    expect(unsub.body).not.toContain('>ana@example.org</a>');
  });

  it('edits a subscriber with a custom field and unsubscribes and resubscribes it on a list', async () => {
    await editor.post('/console/audiences/lists', { _csrf: editor.csrf, name: 'Edit' });
    const list = (await listNamed('Edit'))!;
    const added = await editor.post(`/console/audiences/lists/${list.id}/subscribers`, {
      _csrf: editor.csrf,
      email: 'cy@example.org',
    });
    const page = added.headers.location as string;
    const saved = await editor.post(page, {
      _csrf: editor.csrf,
      email: 'cy@example.org',
      first_name: 'Cy',
      last_name: '',
      phone_number: '',
      field_name: 'Clinic',
      field_value: 'North',
    });
    expect(saved.statusCode).toBe(303);
    expect((await editor.get(page)).body).toContain('value="North"');
    await editor.post(`${page}/subscription`, {
      _csrf: editor.csrf,
      subscribed: 'no',
      list: String(list.id),
    });
    expect((await editor.get(page)).body).toMatch(/<td>Edit<\/td>\s*<td>Unsubscribed<\/td>/);
    await editor.post(`${page}/subscription`, {
      _csrf: editor.csrf,
      subscribed: 'yes',
      list: String(list.id),
    });
    expect((await editor.get(page)).body).toMatch(/<td>Edit<\/td>\s*<td>Subscribed<\/td>/);
  });

  it('exports a list as CSV with its custom fields', async () => {
    const list = (await listNamed('Edit'))!;
    const res = await editor.get(`/console/audiences/lists/${list.id}/export.csv`);
    expect(res.headers['content-type']).toContain('text/csv');
    const lines = res.body.trim().split('\n');
    expect(lines[0]).toContain('email,first_name,last_name,phone_number,status,created_at');
    expect(lines[0]).toContain('Clinic');
    expect(lines[1]).toMatch(/^cy@example.org,Cy,,,subscribed,.*North$/);
  });

  it('shows a viewer no change forms and refuses its changes on the server', async () => {
    const page = await viewer.get('/console/audiences');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('Create list');
    const res = await viewer.post('/console/audiences/lists', { _csrf: viewer.csrf, name: 'Sneaky' });
    expect(res.statusCode).toBe(403);
    expect(await listNamed('Sneaky')).toBeUndefined();
  });

  it('saves the double opt-in and preference-page settings for an editor, refuses a viewer and a bad sender', async () => {
    await editor.post('/console/audiences/lists', { _csrf: editor.csrf, name: 'Opt-in' });
    const list = (await listNamed('Opt-in'))!;
    const path = `/console/audiences/lists/${list.id}/settings`;
    const listKey = await keyOf(t, 'subscription_lists', list.uuid);
    const stored = async () =>
      t.ctx.database.db
        .selectFrom('subscription_lists')
        .select(['double_opt_in', 'public', 'confirm_from_email'])
        .where('id', '=', listKey)
        .executeTakeFirstOrThrow();
    const denied = await viewer.post(path, { _csrf: viewer.csrf, double_opt_in: 'yes', public: 'yes' });
    expect(denied.statusCode).toBe(403);
    await editor.post(path, {
      _csrf: editor.csrf,
      double_opt_in: 'yes',
      confirm_from_email: 'x@elsewhere.example',
    });
    expect(await stored()).toMatchObject({ double_opt_in: 0, public: 0, confirm_from_email: null });
    const ok = await editor.post(path, {
      _csrf: editor.csrf,
      double_opt_in: 'yes',
      confirm_from_email: `news@${a.domain}`,
      public: 'yes',
    });
    expect(ok.statusCode).toBe(303);
    expect(await stored()).toMatchObject({
      double_opt_in: 1,
      public: 1,
      confirm_from_email: `news@${a.domain}`,
    });
    expect((await viewer.get(`/console/audiences/lists/${list.id}`)).body).toContain(
      'Double opt-in: <strong>on</strong>',
    );
  });
});
