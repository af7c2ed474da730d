/** The templates page over HTTP: create and edit (editor yes, viewer no), the preview with sample values, and errors with line and column. */
import { PREVIEW_FRAME_CSP } from './mail-frame.ts';
import { describe, expect, it } from 'vitest';
import { consoleTestBed } from './console.test-support.ts';

const {
  t,
  clients: [editor, viewer],
} = consoleTestBed(['editor', 'viewer']);

describe('templates page', () => {
  it('lets an editor create and edit a template, recorded in the audit trail', async () => {
    const res = await editor.post('/console/templates', {
      _csrf: editor.csrf,
      name: 'reminder',
      body: '<p>Hi {{first_name}}</p>',
    });
    expect(res.statusCode).toBe(303);
    const id = /\/console\/templates\/(\d+)/.exec(res.headers.location as string)![1]!;
    await editor.post(`/console/templates/${id}`, {
      _csrf: editor.csrf,
      name: 'reminder',
      body: '<p>Hello {{first_name}}</p>',
    });
    const page = await viewer.get(`/console/templates/${id}`);
    expect(page.body).toContain('&lt;p&gt;Hello {{first_name}}&lt;/p&gt;');
    expect(page.body).not.toContain('Save template');
    const actions = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('target', '=', `template:${id}`)
      .execute();
    expect(actions.map((r) => r.action)).toEqual(['template.create', 'template.change']);
  });

  it('refuses a broken template with the reason and saves nothing, and refuses a viewer on the server', async () => {
    await editor.post('/console/templates', { _csrf: editor.csrf, name: 'broken', body: '{{#if x}}open' });
    expect((await editor.get('/console/templates/new')).body).toMatch(/not a valid Handlebars template/i);
    expect(
      (await viewer.post('/console/templates', { _csrf: viewer.csrf, name: 'v', body: 'x' })).statusCode,
    ).toBe(403);
    expect((await viewer.get('/console/templates/new')).statusCode).toBe(403);
    expect(await t.ctx.database.db.selectFrom('dynamic_templates').select('name').execute()).toEqual([
      { name: 'reminder' },
    ]);
  });

  it('previews with sample values, and names the line and column of an error', async () => {
    const ok = await editor.post('/console/templates/preview', {
      _csrf: editor.csrf,
      body: '<p>Hi {{first_name}}</p>',
      sample: '{"first_name":"Ana"}',
    });
    expect(ok.json()).toEqual({ html: '<p>Hi Ana</p>' });
    const bad = await editor.post('/console/templates/preview', {
      _csrf: editor.csrf,
      body: 'line one\n  {{foo}',
      sample: '{}',
    });
    expect(bad.json().problem).toMatchObject({ line: 2, column: 8 });
    const block = await editor.post('/console/templates/preview', {
      _csrf: editor.csrf,
      body: 'a\n{{#each x}}b{{/if}}',
      sample: '{}',
    });
    expect(block.json().problem).toMatchObject({ line: 2 });
    const values = await editor.post('/console/templates/preview', {
      _csrf: editor.csrf,
      body: 'x',
      sample: '[1]',
    });
    expect(values.json().problem.message).toMatch(/sample values must be a JSON object/);
    expect((await editor.post('/console/templates/preview', { body: 'x', sample: '{}' })).statusCode).toBe(
      403,
    );
  });

  it('answers the preview frame under its own policy, with inline styles allowed', async () => {
    const frame = await editor.post('/console/templates/preview.html', {
      _csrf: editor.csrf,
      body: '<p style="color:#0a5">Hi {{first_name}}</p>',
      sample: '{"first_name":"Ana"}',
    });
    expect(frame.statusCode).toBe(200);
    expect(frame.body).toBe('<p style="color:#0a5">Hi Ana</p>');
    expect(frame.headers['content-security-policy']).toBe(PREVIEW_FRAME_CSP);
    expect(frame.headers['content-security-policy']).toContain("style-src 'unsafe-inline'");
    const broken = await editor.post('/console/templates/preview.html', {
      _csrf: editor.csrf,
      body: '{{#if x}}',
      sample: '{}',
    });
    expect(broken.body).toBe('');
    expect(
      (await editor.post('/console/templates/preview.html', { body: 'x', sample: '{}' })).statusCode,
    ).toBe(403);
  });
});
