/**
 * Console forms answer with a redirect (post/redirect/get), so a reload never does a thing twice; a new key's value and
 * a new webhook signing secret are shown once, on a page named by a one-time token bound to the session that made it.
 */
import { describe, expect, it } from 'vitest';
import { consoleTestBed, createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';

/** No TXT record anywhere: the test's DNS. */
const dns = {
  resolveTxt: async (name: string): Promise<string[][]> => {
    throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  },
};

const {
  t,
  a,
  clients: [owner],
} = consoleTestBed(['owner'], { dns, config: { webhookAllowPrivateTargets: true } });

const SPENT_KEY = 'This key was already shown; create a new one if you lost it.';
const keyOf = (body: string) => /id="new-key" class="mono">(sp_[\w-]+)</.exec(body)?.[1];
const secretOf = (body: string) => /id="new-secret" class="mono">([^<]+)</.exec(body)?.[1];
const keyCount = async () =>
  (
    await t.ctx.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('customer_id', '=', a.account.customer_id)
      .execute()
  ).length;

/** Creates a key through the form; returns the answer's Location (the one-time page). */
async function createKey(client: ConsoleClient, description: string): Promise<string> {
  const res = await client.post('/console/keys', { _csrf: client.csrf, description, scopes: 'email' });
  expect(res.statusCode).toBe(303);
  return res.headers.location as string;
}

describe('post/redirect/get in the console', () => {
  it('answers every creation form with 303 and a Location', async () => {
    const forms: [string, Record<string, string>][] = [
      ['/console/keys', { description: 'booking system', scopes: 'email' }],
      ['/console/webhooks', { target_url: 'http://127.0.0.1:9/hooks', events: 'api_mail_log_delivered' }],
      ['/console/domains', { domain: 'prg.clinic.example' }],
      ['/console/domains/prg.clinic.example/verify', {}],
      ['/console/templates', { name: 'Reminder', body: '<p>Hello {{first_name}}</p>' }],
      ['/console/audiences/lists', { name: 'Patients' }],
      ['/console/forms/new', { title: 'Intake' }],
      ['/console/settings/users/invite', { email: 'nurse@clinic.example', role: 'editor' }],
    ];
    for (const [path, fields] of forms) {
      const res = await owner.post(path, { _csrf: owner.csrf, ...fields });
      expect({ path, status: res.statusCode }).toEqual({ path, status: 303 });
      expect(res.headers.location, path).toMatch(/^\/console/);
      expect((await owner.get(res.headers.location as string)).statusCode, path).toBeLessThan(400);
    }
  });

  it("shows a new key's value once; a second visit says it was shown and creates no key", async () => {
    const before = await keyCount();
    const location = await createKey(owner, 'front desk');
    expect(location).toMatch(/^\/console\/keys\/new\/[\w-]{32}$/);
    const first = await owner.get(location);
    expect(first.statusCode).toBe(200);
    const value = keyOf(first.body)!;
    expect(value).toMatch(/^sp_/);
    const again = await owner.get(location);
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain(SPENT_KEY);
    expect(again.body).not.toContain(value);
    expect(keyOf(again.body)).toBeUndefined();
    expect(await keyCount()).toBe(before + 1);
  });

  it('keeps the value out of the database: only the sealed value until shown, nothing after', async () => {
    const location = await createKey(owner, 'lab');
    const row = async () =>
      t.ctx.database.db
        .selectFrom('console_reveals')
        .selectAll()
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
    expect((await row()).sealed).toMatch(/^v1\./);
    expect((await row()).id).not.toContain(location.split('/').pop());
    const value = keyOf((await owner.get(location)).body)!;
    const spent = await row();
    expect(spent.sealed).toBeNull();
    expect(spent.shown_at).not.toBeNull();
    expect(JSON.stringify(spent)).not.toContain(value);
  });

  it("does not show the page to another user's session, and the maker can still open it once", async () => {
    const other = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'owner')).email);
    const location = await createKey(owner, 'billing');
    const stranger = await other.get(location);
    expect(stranger.statusCode).toBe(410);
    expect(keyOf(stranger.body)).toBeUndefined();
    expect(keyOf((await owner.get(location)).body)).toMatch(/^sp_/);
  });

  it('shows nothing once the page has expired', async () => {
    const location = await createKey(owner, 'pharmacy');
    await t.ctx.database.db
      .updateTable('console_reveals')
      .set({ expires_at: Date.now() - 1 })
      .execute();
    const late = await owner.get(location);
    expect(late.statusCode).toBe(410);
    expect(late.body).toContain('This page has expired');
    expect(keyOf(late.body)).toBeUndefined();
  });

  it('answers an unknown token without a value', async () => {
    const res = await owner.get('/console/keys/new/not-a-real-token');
    expect(res.statusCode).toBe(410);
    expect(keyOf(res.body)).toBeUndefined();
  });

  it('shows a webhook signing secret once, after adding and after rotating', async () => {
    const added = await owner.post('/console/webhooks', {
      _csrf: owner.csrf,
      target_url: 'http://127.0.0.1:9/secret',
      events: 'api_mail_log_delivered',
    });
    expect(added.statusCode).toBe(303);
    const id = /^\/console\/webhooks\/(we_\w+)\/secret\//.exec(added.headers.location as string)![1]!;
    const secret = secretOf((await owner.get(added.headers.location as string)).body)!;
    expect(secret).toBeTruthy();
    const again = await owner.get(added.headers.location as string);
    expect(again.body).toContain('This signing secret was already shown');
    expect(again.body).not.toContain(secret);

    const rotated = await owner.post(`/console/webhooks/${id}/rotate`, { _csrf: owner.csrf });
    expect(rotated.statusCode).toBe(303);
    const fresh = secretOf((await owner.get(rotated.headers.location as string)).body)!;
    expect(fresh).not.toBe(secret);
    expect(secretOf((await owner.get(rotated.headers.location as string)).body)).toBeUndefined();
  });

  it('refuses a key page of the webhook kind and the other way round', async () => {
    const location = await createKey(owner, 'kinds');
    const token = location.split('/').pop()!;
    const wrong = await owner.get(`/console/webhooks/we_x/secret/${token}`);
    expect(secretOf(wrong.body)).toBeUndefined();
    expect(keyOf((await owner.get(location)).body)).toMatch(/^sp_/);
  });
});
