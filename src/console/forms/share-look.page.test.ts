/** A form's share and look pages over HTTP: the hosted address, QR code and embed snippet, and the form's look, by role. */
import { describe, expect, it } from 'vitest';
import { consoleTestBed } from '../console.test-support.ts';
import { createForm } from '../../forms/forms.test-support.ts';
import { storedForm } from './forms.page.test-support.ts';

const {
  t,
  a,
  clients: [editor, viewer],
} = consoleTestBed(['editor', 'viewer']);
const stored = (id: string) => storedForm(t, a, id);

describe('share page', () => {
  it('shows the hosted address, a QR code and an embed snippet, and sets a vanity name for an editor only', async () => {
    const id = await createForm(t.app, a.auth);
    const page = await viewer.get(`/console/forms/${id}/share`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`/f/${id}</code>`);
    expect(page.body).toMatch(/<svg role="img" aria-label="QR code/);
    expect(page.body).toContain('&lt;a href=');
    expect(
      (await viewer.post(`/console/forms/${id}/vanity`, { _csrf: viewer.csrf, vanity: 'intake' })).statusCode,
    ).toBe(403);
    expect(
      (await editor.post(`/console/forms/${id}/vanity`, { _csrf: editor.csrf, vanity: 'bad name!' }))
        .statusCode,
    ).toBe(303);
    expect((await stored(id)).form_json).toBeDefined();
    expect(((await stored(id)) as unknown as { vanity_url: string | null }).vanity_url).toBeNull();
    await editor.post(`/console/forms/${id}/vanity`, { _csrf: editor.csrf, vanity: 'intake-2026' });
    expect(((await stored(id)) as unknown as { vanity_url: string }).vanity_url).toBe('intake-2026');
    expect((await editor.get(`/console/forms/${id}/share`)).body).toContain('/f/intake-2026</code>');
  });

  it('offers a frame snippet of the hosted page and the QR code as PNG and SVG downloads', async () => {
    const id = await createForm(t.app, a.auth);
    const page = (await viewer.get(`/console/forms/${id}/share`)).body;
    expect(page).toContain(`&lt;iframe src=&quot;${t.ctx.publicUrl}/f/${id}&quot;`);
    const png = await viewer.get(`/console/forms/${id}/share/qr.png`);
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toContain('image/png');
    expect(png.headers['content-disposition']).toContain(`form-${id}-qr.png`);
    expect(png.rawPayload.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const svg = await viewer.get(`/console/forms/${id}/share/qr.svg`);
    expect(svg.headers['content-type']).toContain('image/svg+xml');
    expect(svg.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const hosted = await t.app.inject({ method: 'GET', url: `/f/${id}` });
    expect(hosted.headers['x-frame-options']).toBeUndefined();
    expect(hosted.headers['content-security-policy']).toContain('frame-ancestors *');
  });
});

describe('look page', () => {
  it('stores colours, thank-you text, redirect and Spanish texts, and the hosted page uses them', async () => {
    const id = await createForm(t.app, a.auth);
    const res = await editor.post(`/console/forms/${id}/look`, {
      _csrf: editor.csrf,
      accent_color: '#aa3300',
      background_color: '#ffffff',
      text_color: '#111111',
      thank_you_text: 'Gracias, le llamaremos.',
      redirect_url: 'https://clinic.example/next',
      language: 'es',
    });
    expect(res.statusCode).toBe(303);
    const hosted = await t.app.inject({ method: 'GET', url: `/f/${id}` });
    expect(hosted.body).toContain('<html lang="es">');
    expect(hosted.body).toContain(':root{--brand:#aa3300;--on-brand:#ffffff;--accent:#aa3300}');
    expect(hosted.body).toContain('>Enviar</button>');
    const thanks = await t.app.inject({ method: 'GET', url: `/f/${id}/thanks` });
    expect(thanks.body).toContain('<h1>Gracias</h1>');
    expect(thanks.body).toContain('Gracias, le llamaremos.');
    expect(thanks.body).toContain('content="2;url=https://clinic.example/next"');
  });

  it('refuses a redirect that is not https and keeps the look as it was', async () => {
    const id = await createForm(t.app, a.auth);
    const before = await stored(id);
    const res = await editor.post(`/console/forms/${id}/look`, {
      _csrf: editor.csrf,
      redirect_url: 'javascript:alert(1)',
    });
    expect(res.statusCode).toBe(303);
    expect(await stored(id)).toEqual(before);
    const page = await editor.get(`/console/forms/${id}/look`);
    expect(page.body).toContain('redirect_url must be an https URL');
    expect(
      (await viewer.post(`/console/forms/${id}/look`, { _csrf: viewer.csrf, language: 'es' })).statusCode,
    ).toBe(403);
  });

  it('turns the bot defence on for an editor, keeps it through a look save, and refuses a viewer and a bad value', async () => {
    const id = await createForm(t.app, a.auth);
    const settings = async () =>
      ((await stored(id)).form_json as { settings?: Record<string, unknown> }).settings ?? {};
    const saved = await editor.post(`/console/forms/${id}/bot-defence`, {
      _csrf: editor.csrf,
      bot_defence: 'proof_of_work',
      bot_min_seconds: '4',
      bot_difficulty: '16',
    });
    expect(saved.statusCode).toBe(303);
    expect(await settings()).toEqual({
      bot_defence: 'proof_of_work',
      bot_min_seconds: 4,
      bot_difficulty: 16,
    });
    expect((await t.app.inject({ method: 'GET', url: `/f/${id}` })).body).toContain('data-sp-pow-bits="16"');
    await editor.post(`/console/forms/${id}/look`, { _csrf: editor.csrf, language: 'es' });
    expect(await settings()).toMatchObject({ language: 'es', bot_defence: 'proof_of_work' });
    const page = await editor.get(`/console/forms/${id}/look`);
    expect(page.body).toMatch(/id="bot-proof_of_work"[^>]*checked/);

    await editor.post(`/console/forms/${id}/bot-defence`, {
      _csrf: editor.csrf,
      bot_defence: 'time',
      bot_min_seconds: '0',
    });
    expect((await editor.get(`/console/forms/${id}/look`)).body).toContain(
      'bot_min_seconds must be a whole number from 1 to 600',
    );
    for (const [client, form] of [
      [viewer, { _csrf: viewer.csrf, bot_defence: 'off' }],
      [editor, { bot_defence: 'off' }],
    ] as const)
      expect((await client.post(`/console/forms/${id}/bot-defence`, form)).statusCode).toBe(403);
    expect(await settings()).toMatchObject({ bot_defence: 'proof_of_work', bot_min_seconds: 4 });

    await editor.post(`/console/forms/${id}/bot-defence`, { _csrf: editor.csrf, bot_defence: 'off' });
    expect(await settings()).toEqual({ language: 'es' });
  });
});
