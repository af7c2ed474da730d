import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { message, postJson, recipientsOf } from '../email/email.test-support.ts';
import { signToken, tokenUrls } from '../mail/tokens.ts';

describe('open pixel and click redirect', () => {
  let t: TestApp;
  let acme: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    acme = await t.createAccount();
  });
  afterAll(() => t.close());

  /** Sends an HTML message with two links to two recipients; returns the message id and recipient ids. */
  async function send(data: Record<string, unknown> = {}) {
    const html =
      '<p><a href="https://example.org/one">one</a> <a href="https://example.org/two?a=1&amp;b=2">two</a></p>';
    const res = await postJson(t, '/v1/email/messages', acme.auth, {
      data: {
        message: message(`news@${acme.domain}`, {
          recipients: ['a@example.net', 'b@example.net'],
          content: { 'text/html': html },
        }),
        ...data,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().sourceTrackingId as string;
    const recipients = await recipientsOf(t, id);
    return { id, recipientIds: recipients.map((r) => r.id) };
  }

  const path = (url: string) => new URL(url).pathname;
  const events = (messageId: string) =>
    t.ctx.database.db
      .selectFrom('email_events')
      .selectAll()
      .where('message_id', '=', messageId)
      .orderBy('id')
      .execute();
  const messageRow = (id: string) =>
    t.ctx.database.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('answers the open pixel with an uncacheable transparent GIF, with or without .gif', async () => {
    const { recipientIds } = await send();
    const url = path(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, recipientIds[0]!));
    for (const u of [url, url.replace(/\.gif$/, '')]) {
      const res = await t.app.inject({ method: 'GET', url: u });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/gif');
      expect(res.headers['cache-control']).toContain('no-store');
      expect(res.rawPayload.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    }
  });

  it('counts every open but writes the opened event only on the first open of a recipient', async () => {
    const { id, recipientIds } = await send();
    const [a, b] = recipientIds as [number, number];
    for (const r of [a, a, a, b])
      await t.app.inject({
        method: 'GET',
        url: path(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, r)),
      });
    const rows = await recipientsOf(t, id);
    expect(rows.map((r) => r.open_count)).toEqual([3, 1]);
    expect(rows.every((r) => typeof r.first_opened_at === 'number')).toBe(true);
    expect((await messageRow(id)).total_opens).toBe(4);
    const opened = (await events(id)).filter((e) => e.event === 'opened');
    expect(opened.map((e) => [e.recipient_id, JSON.parse(e.data)])).toEqual([
      [a, { recipient: 'a@example.net' }],
      [b, { recipient: 'b@example.net' }],
    ]);
  });

  it('keeps the first open time when later opens come', async () => {
    const { id, recipientIds } = await send();
    const url = path(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, recipientIds[0]!));
    await t.app.inject({ method: 'GET', url });
    const first = (await recipientsOf(t, id))[0]!.first_opened_at;
    await new Promise((r) => setTimeout(r, 5));
    await t.app.inject({ method: 'GET', url });
    expect((await recipientsOf(t, id))[0]!.first_opened_at).toBe(first);
  });

  it('redirects a click to the link target and counts it with a clicked event', async () => {
    const { id, recipientIds } = await send();
    const res = await t.app.inject({
      method: 'GET',
      url: path(tokenUrls.transactional.click(t.ctx.publicUrl, t.ctx.keys.tracking, recipientIds[1]!, 1)),
    });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://example.org/two?a=1&b=2');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const links = await t.ctx.database.db
      .selectFrom('message_links')
      .selectAll()
      .where('message_id', '=', id)
      .orderBy('position')
      .execute();
    expect(links.map((l) => l.click_count)).toEqual([0, 1]);
    expect(links.map((l) => l.target_url).join(' '), 'link targets are stored sealed').not.toContain(
      'example.org',
    );
    expect((await messageRow(id)).total_clicks).toBe(1);
    const clicked = (await events(id)).filter((e) => e.event === 'clicked');
    expect(clicked.map((e) => JSON.parse(e.data))).toEqual([{ recipient: 'b@example.net', link: 1 }]);
  });

  it('answers 404 with the documented body for a tampered, malformed or unknown token, and counts nothing', async () => {
    const { id, recipientIds } = await send();
    const good = path(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, recipientIds[0]!));
    const tampered = good.replace(
      /\.(.)([^.]{21})\.gif$/,
      (_, c: string, rest: string) => `.${c === 'A' ? 'B' : 'A'}${rest}.gif`,
    );
    const forged = `/t/o/${signToken(Buffer.alloc(32, 7), 'transactional', { kind: 'open', recipientId: recipientIds[0]! })}.gif`;
    const unknown = path(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, 999_999_999));
    const clickAsOpen = `/t/o/${signToken(t.ctx.keys.tracking, 'transactional', { kind: 'click', recipientId: recipientIds[0]!, position: 0 })}`;
    const noSuchLink = path(
      tokenUrls.transactional.click(t.ctx.publicUrl, t.ctx.keys.tracking, recipientIds[0]!, 7),
    );
    const bodies = [];
    for (const url of [
      tampered,
      forged,
      unknown,
      clickAsOpen,
      noSuchLink,
      '/t/o/nonsense.gif',
      '/t/c/nonsense',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      bodies.push(res.json());
    }
    expect(bodies[0]).toMatchObject({ error_code: 'not_found', errors: [{ code: 404, title: 'Not found' }] });
    expect(new Set(bodies.map((b) => b.message)).size).toBe(1);
    expect((await recipientsOf(t, id)).map((r) => r.open_count)).toEqual([0, 0]);
    const m = await messageRow(id);
    expect([m.total_opens, m.total_clicks]).toEqual([0, 0]);
    expect(await events(id)).toEqual([]);
  });

  it('counts nothing for HEAD requests, which link scanners send', async () => {
    const { id, recipientIds } = await send();
    const open = path(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, recipientIds[0]!));
    const click = path(
      tokenUrls.transactional.click(t.ctx.publicUrl, t.ctx.keys.tracking, recipientIds[0]!, 0),
    );
    expect((await t.app.inject({ method: 'HEAD', url: open })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'HEAD', url: click })).statusCode).toBe(404);
    const row = await messageRow(id);
    expect([row.total_opens, row.total_clicks]).toEqual([0, 0]);
  });

  it('needs no API key and ignores an Authorization header', async () => {
    const { recipientIds } = await send();
    const url = path(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, recipientIds[0]!));
    expect(
      (await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer wrong' } })).statusCode,
    ).toBe(200);
  });

  it('does not count opens or clicks of a message sent with tracking switched off', async () => {
    const { id, recipientIds } = await send({ override_open_tracking: false, override_link_tracking: false });
    const open = await t.app.inject({
      method: 'GET',
      url: path(tokenUrls.transactional.open(t.ctx.publicUrl, t.ctx.keys.tracking, recipientIds[0]!)),
    });
    expect(open.statusCode).toBe(200);
    const click = await t.app.inject({
      method: 'GET',
      url: path(tokenUrls.transactional.click(t.ctx.publicUrl, t.ctx.keys.tracking, recipientIds[0]!, 0)),
    });
    expect(click.statusCode).toBe(404);
    const m = await messageRow(id);
    expect([m.open_tracking, m.link_tracking, m.total_opens, m.total_clicks]).toEqual([0, 0, 0, 0]);
  });
});
