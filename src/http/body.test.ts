import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { dropAbsent } from './body.ts';

describe('tolerant body rules', () => {
  let t: TestApp;
  let acme: TestAccount;
  const seen: unknown[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      extraRoutes: (app) => {
        const Body = Type.Object({
          data: Type.Object({
            subject: Type.String(),
            reply_to: Type.Optional(Type.String({ format: 'email' })),
            tags: Type.Optional(Type.Array(Type.String(), { minItems: 1 })),
            extra: Type.Optional(Type.Object({ a: Type.String() })),
          }),
        });
        app.post('/v1/email/echo', { schema: { body: Body } }, async (req) => ({ body: req.body }));
        app.post('/v1/email/archive', async (req) => ({ body: req.body ?? null }));
        app.post('/v1/email/raw', { config: { verbatimBodyKeys: ['form_json'] } }, async (req) => ({
          body: req.body,
        }));
        app.get('/v1/email/thing', async (req) => {
          seen.push(req.body);
          return { ok: true };
        });
        app.delete('/v1/email/thing', async (req) => {
          seen.push(req.body);
          return { ok: true };
        });
      },
    });
    acme = await t.createAccount();
  });
  afterAll(() => t.close());

  it('ignores a JSON null body on GET', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/email/thing',
      headers: { ...acme.auth, 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(res.statusCode).toBe(200);
  });

  it('ignores an empty urlencoded body on DELETE', async () => {
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/v1/email/thing',
      headers: { ...acme.auth, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(res.statusCode).toBe(200);
    expect(seen.at(-1)).toBeUndefined();
  });

  it('ignores a JSON null body on DELETE', async () => {
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/v1/email/thing',
      headers: { ...acme.auth, 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(res.statusCode).toBe(200);
    expect(seen.at(-1)).toBeUndefined();
  });

  it('accepts a POST with a JSON content type and an empty body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/email/archive',
      headers: { ...acme.auth, 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ body: null });
  });

  it('treats null, "", [] and {} optionals as absent', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/email/echo',
      headers: acme.auth,
      payload: { data: { subject: 'Hi', reply_to: '', tags: [], extra: {} } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ body: { data: { subject: 'Hi' } } });
  });

  it('still rejects a required field sent as null, naming it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/email/echo',
      headers: acme.auth,
      payload: { data: { subject: null } },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error_code).toBe('request.invalid');
    expect(body.message).toContain('data.subject is required');
    expect(body.errors[0]).toMatchObject({ code: 400, title: 'Bad request' });
  });

  it('rejects malformed JSON with 400 and the documented body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/email/echo',
      headers: { ...acme.auth, 'content-type': 'application/json' },
      payload: '{"data":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error_code: 'request.invalid', errors: [{ code: 400 }] });
  });

  it('rejects an unsupported content type with 415', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/email/echo',
      headers: { ...acme.auth, 'content-type': 'text/csv' },
      payload: 'a,b',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().error_code).toBe('request.unsupported_media_type');
  });

  it('keeps verbatim keys as sent', async () => {
    const payload = { form_json: { body: [], x: '' }, note: '' };
    const res = await t.app.inject({ method: 'POST', url: '/v1/email/raw', headers: acme.auth, payload });
    expect(res.json()).toEqual({ body: { form_json: { body: [], x: '' } } });
  });

  it('cleans objects inside arrays but keeps the elements', () => {
    expect(dropAbsent([{ a: null, b: 1 }, 'x', null])).toEqual([{ b: 1 }, 'x', null]);
  });
});
