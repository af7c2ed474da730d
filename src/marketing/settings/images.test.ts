import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { marketingClient } from '../marketing.test-support.ts';

/** A solid image of the given size and format. */
const picture = (width: number, height: number, format: 'png' | 'jpeg' | 'gif' | 'webp') =>
  sharp({ create: { width, height, channels: 3, background: '#2a7f62' } })
    .toFormat(format)
    .toBuffer();

describe('image library', () => {
  let t: TestApp;
  let acme: TestAccount;
  let other: TestAccount;
  let call: ReturnType<typeof marketingClient>;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createAccount();
    other = await t.createAccount();
    call = marketingClient(t, acme);
  });
  afterAll(() => t.close());

  const upload = async (name: string, bytes: Buffer) =>
    call('POST', '/images', { name, content: bytes.toString('base64') });
  const fetchPublic = (url: string) => t.app.inject({ method: 'GET', url: new URL(url).pathname });
  const count = async () => (await t.ctx.database.db.selectFrom('images').select('id').execute()).length;

  it('stores an upload resized to 1200 pixels wide and serves it from an unguessable public URL', async () => {
    const res = await upload('photos/banner.png', await picture(2400, 800, 'png'));
    expect(res.statusCode, res.body).toBe(200);
    const img = res.json().data;
    expect(img).toMatchObject({ name: 'banner.png', content_type: 'image/png', width: 1200, height: 400 });
    expect(img.url).toMatch(new RegExp(`^${t.ctx.publicUrl}/img/[A-Za-z0-9_-]{32}\\.png$`));
    const served = await fetchPublic(img.url);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['content-disposition']).toBe('inline');
    expect(served.headers['cache-control']).toContain('immutable');
    expect(served.headers['content-security-policy']).toContain('sandbox');
    const meta = await sharp(served.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1200, 400]);
  });

  it.each(['jpeg', 'gif', 'webp'] as const)(
    'accepts a %s image and serves it with its decoded type',
    async (f) => {
      const res = await upload(`file.${f}`, await picture(40, 30, f));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({ content_type: `image/${f}`, width: 40, height: 30 });
      expect((await fetchPublic(res.json().data.url)).headers['content-type']).toBe(`image/${f}`);
    },
  );

  it('takes the type from the decoded bytes, not from the file name', async () => {
    const res = await upload('looks-like.png', await picture(10, 10, 'jpeg'));
    expect(res.json().data.content_type).toBe('image/jpeg');
    expect(res.json().data.url).toMatch(/\.jpg$/);
  });

  it.each([
    [
      'an SVG with a script',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    ],
    ['an HTML page', Buffer.from('<html><script>alert(1)</script></html>')],
    ['a truncated PNG', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')],
  ])('refuses %s with image.invalid and stores nothing', async (_what, bytes) => {
    const before = await count();
    const res = await upload('x.png', bytes);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors[0].title).toBe('Not a usable image');
    expect(await count()).toBe(before);
  });

  it('refuses content that is not base64', async () => {
    const res = await call('POST', '/images', { name: 'x.png', content: '***' });
    expect(res.statusCode).toBe(422);
  });

  it('refuses an upload over the byte limit with 413', async () => {
    const big = Buffer.alloc(t.ctx.config.imageMaxBytes + 1, 1);
    const res = await upload('big.png', big);
    expect(res.statusCode, res.body).toBe(413);
  });

  it('answers 404 for an unknown token or a wrong extension', async () => {
    const img = (await upload('a.png', await picture(8, 8, 'png'))).json().data;
    expect((await fetchPublic(img.url.replace(/\.png$/, '.gif'))).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/img/${'A'.repeat(32)}.png` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/img/../../etc/passwd' })).statusCode).toBe(404);
  });

  it('lists the account’s images newest first and keeps other accounts out', async () => {
    const img = (await upload('mine.webp', await picture(8, 8, 'webp'))).json().data;
    const list = (await call('GET', '/images')).json().data as { id: string }[];
    expect(list[0]!.id).toBe(img.id);
    const theirs = marketingClient(t, other);
    expect((await theirs('GET', '/images')).json().data).toEqual([]);
    expect((await theirs('GET', `/images/${img.id}`)).statusCode).toBe(404);
    expect((await theirs('DELETE', `/images/${img.id}`)).statusCode).toBe(404);
    expect((await call('GET', `/images/${img.id}`)).json().data).toEqual(img);
  });

  it('deletes an image, after which its public URL is gone', async () => {
    const img = (await upload('gone.png', await picture(8, 8, 'png'))).json().data;
    const del = await call('DELETE', `/images/${img.id}`);
    expect(del.statusCode, del.body).toBe(200);
    expect((await fetchPublic(img.url)).statusCode).toBe(404);
    expect((await call('GET', `/images/${img.id}`)).statusCode).toBe(404);
  });

  it('keeps the brand in settings: colour normalised, logo from the library, and the logo cannot be deleted', async () => {
    const logo = (await upload('logo.png', await picture(300, 100, 'png'))).json().data;
    const set = await call('PATCH', '/settings', {
      settings: { brand_name: 'Riverside Clinic', brand_color: '#2A7', brand_logo_image_id: logo.id },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data.attributes).toMatchObject({
      brand_name: 'Riverside Clinic',
      brand_color: '#22aa77',
      brand_logo_image_id: logo.id,
    });
    const del = await call('DELETE', `/images/${logo.id}`);
    expect(del.statusCode).toBe(409);
    expect((await fetchPublic(logo.url)).statusCode).toBe(200);
  });

  it('refuses a colour that is not #rrggbb and a logo that is not in the library, changing nothing', async () => {
    const bad = await call('PATCH', '/settings', { settings: { brand_color: 'red', brand_name: 'Other' } });
    expect(bad.statusCode).toBe(400);
    const missing = await call('PATCH', '/settings', { settings: { brand_logo_image_id: 'nope' } });
    expect(missing.statusCode).toBe(404);
    const now = (await call('GET', '/settings')).json().data.attributes;
    expect(now).toMatchObject({ brand_name: 'Riverside Clinic', brand_color: '#22aa77' });
  });
});
