/**
 * Changes are audited by the services that make them, so the API (the key as the actor) writes the same entries as the
 * console and the command line: webhook endpoint changes and marketing settings, once per change, with facts and never a
 * signing key; a refused change writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { FAST } from '../webhooks/webhooks.test-support.ts';
import { searchAudit } from './audit.service.ts';

let t: TestApp;
let a: TestAccount;
const IP = '203.0.113.40';

beforeAll(async () => {
  t = await createTestApp({ config: FAST });
  a = await t.createAccount();
});
afterAll(async () => t?.close());

const trail = async (target: string) =>
  (await searchAudit(t.ctx.database.db, { customerId: a.account.customer_id, limit: 100 }))
    .filter((e) => e.target === target)
    .reverse();

const api = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: a.auth, payload, remoteAddress: IP });

describe('audit entries written by the services, through the API', () => {
  it('records each webhook endpoint change once, with the key and the address, and never a signing key', async () => {
    const created = await api('POST', '/v1/email/webhook_endpoints', {
      target_url: 'http://127.0.0.1:8999/in',
      events: ['api_mail_log_delivered'],
    });
    expect(created.statusCode).toBe(201);
    const { id, signing_key: first } = created.json() as { id: string; signing_key: string };
    const rotated = await api('PATCH', `/v1/email/webhook_endpoints/${id}`, { rotate_signing_key: true });
    const second = (rotated.json() as { signing_key: string }).signing_key;
    await api('PATCH', `/v1/email/webhook_endpoints/${id}`, { active: false });
    await api('PATCH', `/v1/email/webhook_endpoints/${id}`, { active: true });
    const replay = await api('POST', `/v1/email/webhook_endpoints/${id}/replay`, {
      since: '2026-01-01T00:00:00Z',
    });
    expect(replay.statusCode).toBe(200);
    await api('DELETE', `/v1/email/webhook_endpoints/${id}`);

    const entries = await trail(`webhook:${id}`);
    expect(entries.map((e) => [e.action, e.actor_type, e.actor_id, e.ip])).toEqual([
      ['webhook.create', 'key', a.keyId, IP],
      ['webhook.update', 'key', a.keyId, IP],
      ['webhook.update', 'key', a.keyId, IP],
      ['webhook.update', 'key', a.keyId, IP],
      ['webhook.replay', 'key', a.keyId, IP],
      ['webhook.delete', 'key', a.keyId, IP],
    ]);
    expect(entries[0]!.detail).toMatchObject({
      target_url: 'http://127.0.0.1:8999/in',
      events: ['api_mail_log_delivered'],
    });
    expect(entries[1]!.detail.fields).toEqual(['rotate_signing_key']);
    expect(entries[2]!.detail).toMatchObject({ fields: ['active'], active: false });
    expect(entries[4]!.detail).toMatchObject({ since: '2026-01-01T00:00:00Z', replayed: 0 });
    const all = JSON.stringify(entries);
    expect(all).not.toContain(first);
    expect(all).not.toContain(second);
  });

  it('writes nothing for a refused change', async () => {
    const created = await api('POST', '/v1/email/webhook_endpoints', {
      target_url: 'http://127.0.0.1:8999/in',
      events: ['api_mail_log_delivered'],
    });
    const id = (created.json() as { id: string }).id;
    const before = (await trail(`webhook:${id}`)).length;
    const bad = await api('PATCH', `/v1/email/webhook_endpoints/${id}`, { events: ['api_mail_log_sent'] });
    expect(bad.statusCode).toBe(400);
    const refusedCreate = await api('POST', '/v1/email/webhook_endpoints', {
      target_url: 'ftp://nowhere.example',
      events: ['api_mail_log_delivered'],
    });
    expect(refusedCreate.statusCode).toBe(400);
    expect((await trail(`webhook:${id}`)).length).toBe(before);
    const creates = await searchAudit(t.ctx.database.db, {
      customerId: a.account.customer_id,
      action: 'webhook.create',
      limit: 100,
    });
    expect(creates.map((e) => e.target)).not.toContain('webhook:?');
  });

  it('records a marketing settings change once, with what changed', async () => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/v1/marketing/settings',
      headers: a.auth,
      remoteAddress: IP,
      payload: { settings: { suppress_transactional: true } },
    });
    expect(res.statusCode).toBe(200);
    const entries = await trail(`account:${a.account.customer_id}`);
    expect(entries.filter((e) => e.action === 'settings.marketing_update')).toEqual([
      expect.objectContaining({
        actor_type: 'key',
        actor_id: a.keyId,
        ip: IP,
        detail: { suppress_transactional: true },
      }),
    ]);
  });
});
