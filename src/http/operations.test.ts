import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { AppError } from '../errors/app-error.ts';

describe('operational routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      extraRoutes: (app) => {
        app.get('/boom', async () => {
          throw new Error('secret detail: password=hunter2');
        });
        app.get('/app-error', async () => {
          throw new AppError('conflict', 'already there', { extra: { sourceTrackingId: 'abc' } });
        });
      },
    });
  });
  afterAll(() => t.close());

  it('answers /healthz with ok', async () => {
    const res = await t.app.inject('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz with ready when the schema is current', async () => {
    const res = await t.app.inject('/readyz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready' });
  });

  it('serves Prometheus metrics that count requests by route', async () => {
    await t.app.inject('/healthz');
    const res = await t.app.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.body).toMatch(
      /sealpost_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/,
    );
    expect(res.body).toContain('sealpost_process_cpu_seconds_total');
  });

  it('serves the OpenAPI document and a readable docs page', async () => {
    const doc = await t.app.inject('/openapi.json');
    expect(doc.statusCode).toBe(200);
    expect(doc.json()).toMatchObject({ openapi: '3.1.0', info: { title: 'Sealpost API' } });
    expect(Object.keys(doc.json().paths)).toContain('/healthz');
    // A query parameter with a default is not one a caller must send.
    const list = doc.json().paths['/v1/marketing/{username}/subscribers'].get.parameters as {
      name: string;
      required?: boolean;
    }[];
    expect(list.find((p) => p.name === 'items')?.required).toBe(false);
    const page = await t.app.inject('/docs/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });

  it("serves the docs page's files, the same document as /openapi.json, and the app's 404 for a file it lacks", async () => {
    const css = await t.app.inject('/docs/static/swagger-ui.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/text\/css/);
    const head = await t.app.inject({ method: 'HEAD', url: '/docs/static/swagger-ui.css' });
    expect(head.headers['content-length']).toBe(String(css.rawPayload.length));
    expect((await t.app.inject('/docs/json')).json()).toEqual((await t.app.inject('/openapi.json')).json());
    const missing = await t.app.inject('/docs/static/missing.js');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error_code: 'not_found' });
  });

  it('echoes a sane x-request-id and makes one up otherwise', async () => {
    expect(
      (await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } })).headers[
        'x-request-id'
      ],
    ).toBe('abc-123');
    const made = (await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } }))
      .headers['x-request-id'];
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never sends the details of an unexpected error', async () => {
    const res = await t.app.inject('/boom');
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('hunter2');
    expect(res.json()).toMatchObject({
      error_code: 'internal',
      errors: [{ code: 500, title: 'Internal server error' }],
    });
  });

  it('sends an AppError with its catalogue status and extra fields', async () => {
    const res = await t.app.inject('/app-error');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      sourceTrackingId: 'abc',
      message: 'already there',
      error_code: 'conflict',
      errors: [{ code: 409, title: 'Conflict', details: 'already there', message: 'already there' }],
    });
  });

  it('answers /readyz with 503 naming the migration when one is pending', async () => {
    await sql`delete from kysely_migration`.execute(t.ctx.database.db);
    const res = await t.app.inject('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      status: 'not ready',
      reasons: [expect.stringMatching(/^pending migrations: 0001_foundation, /)],
    });
  });
});

describe('metrics token', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { metricsToken: 'm-secret' } });
  });
  afterAll(() => t.close());

  it('requires the configured bearer token on /metrics', async () => {
    expect((await t.app.inject('/metrics')).statusCode).toBe(401);
    expect(
      (await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer m-secret' } })).statusCode,
    ).toBe(200);
  });
});
