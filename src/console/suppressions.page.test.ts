/** The settings pages for suppression and retention over HTTP: the list, adding, removing, switching it, roles refused by the server. */
import { describe, expect, it } from 'vitest';
import { addSuppression } from '../accounts/suppressions.service.ts';
import { consoleTestBed } from './console.test-support.ts';

const {
  t,
  a,
  clients: [admin, viewer],
} = consoleTestBed(['admin', 'viewer'], { config: { contentRetentionDays: 30, auditRetentionDays: 400 } });

const audited = (action: string) =>
  t.ctx.database.db
    .selectFrom('audit_log')
    .select(['target', 'detail'])
    .where('customer_id', '=', a.account.customer_id)
    .where('action', '=', action)
    .orderBy('id')
    .execute();

describe('settings: suppression and retention', () => {
  it('links both from the settings page and shows how long content and the audit trail are kept', async () => {
    const hub = await viewer.get('/console/settings');
    expect(hub.body).toContain('href="/console/settings/suppressions"');
    expect(hub.body).toMatch(/Message content[^<]*<\/dt>\s*<dd>30 days/);
    expect(hub.body).toMatch(/Audit trail entries<\/dt>\s*<dd>400 days/);
  });

  it('lists suppressed addresses with their reason; an admin adds and removes one, each in the audit trail', async () => {
    await addSuppression(t.ctx, a.account.customer_id, 'gone@patients.example', '550 5.1.1 no such mailbox');
    const page = await viewer.get('/console/settings/suppressions');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('gone@patients.example');
    expect(page.body).toContain('550 5.1.1 no such mailbox');
    expect(page.body).toMatch(/The list is <strong>on<\/strong>/);

    const added = await admin.post('/console/settings/suppressions', {
      _csrf: admin.csrf,
      address: ' Moved@Patients.example ',
    });
    expect(added.statusCode).toBe(303);
    expect((await admin.get('/console/settings/suppressions')).body).toContain('moved@patients.example');

    const removed = await admin.post('/console/settings/suppressions/remove', {
      _csrf: admin.csrf,
      address: 'gone@patients.example',
    });
    expect(removed.statusCode).toBe(303);
    expect((await admin.get('/console/settings/suppressions')).body).not.toContain('gone@patients.example');
    expect((await audited('suppression.add')).map((r) => r.target)).toEqual([
      'address:moved@patients.example',
    ]);
    expect((await audited('suppression.remove')).map((r) => r.target)).toEqual([
      'address:gone@patients.example',
    ]);
  });

  it('switches the list off and on for an admin, recorded by the service', async () => {
    const off = await admin.post('/console/settings/suppressions/state', { _csrf: admin.csrf, on: 'false' });
    expect(off.statusCode).toBe(303);
    expect((await admin.get('/console/settings/suppressions')).body).toMatch(
      /The list is <strong>off<\/strong>/,
    );
    await admin.post('/console/settings/suppressions/state', { _csrf: admin.csrf, on: 'true' });
    expect((await audited('settings.suppression_list')).map((r) => JSON.parse(r.detail))).toEqual([
      { suppression_list: false },
      { suppression_list: true },
    ]);
  });

  it('refuses a bad address, and shows a viewer no form and refuses its changes on the server', async () => {
    const bad = await admin.post('/console/settings/suppressions', {
      _csrf: admin.csrf,
      address: 'not an address',
    });
    expect(bad.statusCode).toBe(303);
    expect((await admin.get('/console/settings/suppressions')).body).toContain('not an email address');
    const page = await viewer.get('/console/settings/suppressions');
    expect(page.body).not.toContain('action="/console/settings/suppressions');
    for (const [url, form] of [
      ['/console/settings/suppressions', { address: 'x@patients.example' }],
      ['/console/settings/suppressions/remove', { address: 'moved@patients.example' }],
      ['/console/settings/suppressions/state', { on: 'false' }],
    ] as const)
      expect((await viewer.post(url, { _csrf: viewer.csrf, ...form })).statusCode, url).toBe(403);
    expect((await admin.get('/console/settings/suppressions')).body).toContain('moved@patients.example');
    expect(
      (await admin.post('/console/settings/suppressions/remove', { address: 'moved@patients.example' }))
        .statusCode,
    ).toBe(403);
  });
});
