/**
 * The OpenAPI document the app serves passes Redocly's recommended lint rules (the rules switched off, and the few
 * findings left on purpose, are in openapi-lint.test-support.ts with their reasons), and says what the rules do not check: an
 * operationId and a summary on every operation, every path parameter declared, the access rule of every operation,
 * the multipart template upload, the forms of the public pages, and links to the prose documentation that resolve on
 * this server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { Ajv } from 'ajv';
import { lintOpenApi } from './openapi-lint.test-support.ts';

let t: TestApp;
let doc: {
  info: { description: string; license?: { name: string } };
  paths: Record<string, Record<string, Record<string, unknown>>>;
};
let source: string;
beforeAll(async () => {
  t = await createTestApp({ config: { publicUrl: 'https://mail.clinic.test' } });
  source = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).body;
  doc = JSON.parse(source);
});
afterAll(() => t.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );

describe('the served OpenAPI document', () => {
  it('has no error and no warning under the recommended rules', async () => {
    const problems = await lintOpenApi(source);
    expect(problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual(
      [],
    );
  });

  it('gives every operation a unique operationId and a summary, and declares every path parameter', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(100);
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ops.length);
    for (const { path, method, op } of ops) {
      expect(op.summary, `${method} ${path}`).toEqual(expect.any(String));
      const declared = ((op.parameters ?? []) as { in: string; name: string }[])
        .filter((p) => p.in === 'path')
        .map((p) => p.name)
        .sort();
      expect(declared, `${method} ${path}`).toEqual(
        [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort(),
      );
    }
    expect(doc.paths['/v1/marketing/{username}/subscribers/{id}']!.get!.operationId).toBe(
      'getV1MarketingByUsernameSubscribersById',
    );
  });

  it('marks public operations public and the others as needing an API key', () => {
    expect(doc.paths['/healthz']!.get!.security).toEqual([]);
    expect(doc.paths['/v1/forms/api/forms/{id}/submissions']!.post!.security).toEqual([]);
    expect(doc.paths['/v1/email/messages']!.post!.security).toEqual([{ bearer: [] }, { token: [] }]);
    expect(doc.paths['/v1/email/messages']!.post!.responses).toHaveProperty('401');
  });

  it('describes the multipart template upload', () => {
    const body = doc.paths['/v1/email/dynamic_templates']!.post!.requestBody as {
      content: Record<string, { schema: { required: string[]; properties: Record<string, unknown> } }>;
    };
    const form = body.content['multipart/form-data']!;
    expect(form.schema.required).toEqual(['data[name]', 'data[body]']);
    expect(Object.keys(form.schema.properties)).toEqual(['data[name]', 'data[body]']);
  });

  it('describes the forms of the public pages, and which may be posted without a body', () => {
    type Form = { required: boolean; content: Record<string, { schema: { required?: string[] } }> };
    const form = (path: string) => doc.paths[path]!.post!.requestBody as Form;
    const urlencoded = 'application/x-www-form-urlencoded';
    expect(form('/u/{token}').required).toBe(false);
    expect(Object.keys(form('/u/{token}').content)).toEqual([urlencoded]);
    expect(form('/confirm/{token}').required).toBe(false);
    expect(form('/p/{token}').required).toBe(true);
    expect(form('/p/{token}').content[urlencoded]!.schema.required).toEqual(['form_key']);
    expect(doc.paths['/p/{token}']!.post!.responses).toHaveProperty('400');
  });

  it('links the prose documentation, and the links resolve on this server', async () => {
    expect(doc.info.license?.name).toBe('Apache-2.0');
    const links = [...doc.info.description.matchAll(/\]\((\/docs\/guide\/[a-z-]+\.md)\)/g)].map((m) => m[1]!);
    expect(links).toContain('/docs/guide/email.md');
    expect(links.length).toBeGreaterThanOrEqual(8);
    for (const link of links) {
      const res = await t.app.inject({ method: 'GET', url: link });
      expect(res.statusCode, link).toBe(200);
      expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(res.body).toMatch(/^# /);
    }
    const missing = await t.app.inject({ method: 'GET', url: '/docs/guide/..%2Fpackage.json' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error_code).toBe('not_found');
  });
});

describe('examples in the served document', () => {
  it('are given for every JSON request and success body, and each one matches its schema', () => {
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    const checked: string[] = [];
    for (const { path, method, op } of operations()) {
      const bodies: [string, { schema?: object; example?: unknown } | undefined][] = [
        ['request', (op.requestBody as Content | undefined)?.content?.['application/json']],
        ...Object.entries((op.responses ?? {}) as Record<string, Content>).map(
          ([status, r]) => [status, r.content?.['application/json']] as [string, Content['content'][string]],
        ),
      ];
      for (const [which, body] of bodies) {
        if (!body) continue;
        if (which === 'request' || which.startsWith('2'))
          expect(body.example, `${method} ${path} ${which}: no example`).toBeDefined();
        if (body.example === undefined) continue;
        const validate = ajv.compile(body.schema ?? {});
        expect(validate(body.example), `${method} ${path} ${which}: ${ajv.errorsText(validate.errors)}`).toBe(
          true,
        );
        checked.push(`${method} ${path} ${which}`);
      }
    }
    expect(checked.length).toBeGreaterThanOrEqual(160);
    expect(checked).toEqual(
      expect.arrayContaining([
        'post /v1/email/messages request',
        'post /v1/email/messages 200',
        'get /v1/email/message_receipt 200',
        'post /v1/email/dynamic_templates 200',
        'post /v1/marketing/{username}/subscribers request',
        'get /v1/marketing/{username}/subscribers/{id} 200',
        'post /v1/email/bulk_messages request',
        'post /v1/email/webhook_endpoints 201',
        'post /v1/forms/api/forms request',
        'post /v1/marketing/{username}/campaign_mailings request',
        'post /v1/marketing/{username}/campaign_mailing_sends request',
        'get /v1/marketing/{username}/campaign_mailing_sends 200',
        'get /v1/marketing/{username}/campaign_mailings/{id} 200',
        'get /v1/marketing/{username}/subscribers 200',
      ]),
    );
  });
});

interface Content {
  content: Record<string, { schema?: object; example?: unknown } | undefined>;
}
