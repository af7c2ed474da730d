/** The campaigns pages over HTTP: compose (text made from the HTML), test send, send, live progress JSON, pause, resume and cancel; postal address and preview. */
import { describe, expect, it } from 'vitest';
import { consoleTestBed } from '../console.test-support.ts';
import { createList } from '../../marketing/lists/lists.service.ts';
import { createSubscriber } from '../../marketing/subscribers/subscribers.service.ts';
import { mailingsOf, mailingOf } from '../../marketing/mailings/mailings.service.ts';

const {
  t,
  a,
  clients: [editor, viewer],
} = consoleTestBed(['editor', 'viewer']);

async function compose(subject: string): Promise<string> {
  const res = await editor.post('/console/campaigns/mailings', {
    _csrf: editor.csrf,
    subject,
    from_email: `news@${a.domain}`,
    from_name: 'Clinic',
    html_part: '<h1>Hello {{first_name}}</h1><p>Our <a href="https://example.org/hours">new hours</a>.</p>',
    text_part: '',
  });
  expect(res.statusCode).toBe(303);
  return (res.headers.location as string).split('/').pop()!;
}

describe('console campaigns', () => {
  it('saves a mailing with a text part made from its HTML', async () => {
    const id = await compose('Opening hours');
    const m = await mailingOf(t.ctx, a.account.customer_id, id);
    expect(m.attributes.text_part).toContain('Hello {{first_name}}');
    expect(m.attributes.text_part).toContain('new hours [https://example.org/hours]');
    expect((await editor.get(`/console/campaigns/mailings/${id}`)).body).toContain('Mailing: Opening hours');
  });

  it('sends a test and records it', async () => {
    const id = await compose('Test me');
    const before = await t.ctx.database.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const res = await editor.post(`/console/campaigns/mailings/${id}/test`, {
      _csrf: editor.csrf,
      to_email: 'reader@example.org',
    });
    expect(res.statusCode).toBe(303);
    const after = await t.ctx.database.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n) + 1);
  });

  it('sends to a list, shows the progress as JSON, and pauses and resumes', async () => {
    const id = await compose('To the list');
    const list = await createList(t.ctx, a.account.customer_id, 'Campaign list');
    for (const email of ['x@example.org', 'y@example.org'])
      await createSubscriber(t.ctx, a.account.customer_id, { email }, list.id);
    const res = await editor.post(`/console/campaigns/mailings/${id}/send`, {
      _csrf: editor.csrf,
      list: String(list.id),
      send_at: '',
    });
    const page = res.headers.location as string;
    expect(page).toMatch(/^\/console\/campaigns\/sends\//);
    const progress = JSON.parse((await editor.get(`${page}/progress.json`)).body);
    expect(progress).toMatchObject({ state: 'expanding', sent: 0, finished: false });
    await editor.post(`${page}/pause`, { _csrf: editor.csrf });
    expect(JSON.parse((await editor.get(`${page}/progress.json`)).body).state).toBe('paused');
    expect((await editor.get(page)).body).toContain('Resume');
    await editor.post(`${page}/resume`, { _csrf: editor.csrf });
    expect(JSON.parse((await editor.get(`${page}/progress.json`)).body).state).toBe('expanding');

    // A viewer cannot cancel; an editor can, and the send shows cancelled with its counts.
    expect((await viewer.post(`${page}/cancel`, { _csrf: viewer.csrf })).statusCode).toBe(403);
    expect(JSON.parse((await editor.get(`${page}/progress.json`)).body).state).toBe('expanding');
    const cancelled = await editor.post(`${page}/cancel`, { _csrf: editor.csrf });
    expect(cancelled.statusCode).toBe(303);
    const after = JSON.parse((await editor.get(`${page}/progress.json`)).body);
    expect(after).toMatchObject({ state: 'cancelled', finished: true, sent: 0 });
    const body = (await editor.get(page)).body;
    expect(body).toContain('cancelled');
    expect(body).not.toContain('Cancel the send');
    const rows = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', '=', 'send.cancel')
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('keeps the postal address and previews a mailing as a chosen subscriber', async () => {
    const saved = await editor.post('/console/campaigns/postal-address', {
      _csrf: editor.csrf,
      postal_address: 'North Clinic\n2 Hill Street',
    });
    expect(saved.statusCode).toBe(303);
    const id = await compose('Preview me');
    await createSubscriber(t.ctx, a.account.customer_id, { email: 'pat@example.org', first_name: 'Pat' });
    const page = await editor.get(`/console/campaigns/mailings/${id}?preview=pat%40example.org`);
    expect(page.body).toContain('preview.html?subscriber=pat%40example.org');
    const frame = await editor.get(
      `/console/campaigns/mailings/${id}/preview.html?subscriber=pat%40example.org`,
    );
    expect(frame.statusCode).toBe(200);
    expect(frame.headers['content-security-policy']).toContain("default-src 'none'");
    expect(frame.body).toContain('<h1>Hello Pat</h1>');
    expect(frame.body).toContain('North Clinic<br>2 Hill Street');
    expect(frame.body).toContain('Manage your subscriptions');
    const unknown = await editor.get(`/console/campaigns/mailings/${id}?preview=nobody%40example.org`);
    expect(unknown.body).toContain('No subscriber has the email nobody@example.org.');
    expect(
      (await viewer.post('/console/campaigns/postal-address', { _csrf: viewer.csrf, postal_address: 'x' }))
        .statusCode,
    ).toBe(403);
  });

  it('schedules a send for a UTC time', async () => {
    const id = await compose('Later');
    const list = await createList(t.ctx, a.account.customer_id, 'Later list');
    const res = await editor.post(`/console/campaigns/mailings/${id}/send`, {
      _csrf: editor.csrf,
      list: String(list.id),
      send_at: '2099-01-02T03:04',
    });
    const body = (await editor.get(res.headers.location as string)).body;
    expect(body).toContain('scheduled');
    expect(body).toContain('2099-01-02 03:04 UTC');
  });

  it('refuses a viewer compose and send on the server and shows it no forms', async () => {
    const count = (
      await mailingsOf(t.ctx, a.account.customer_id, {
        order_by: 'created_at',
        order: 'desc',
        items: 100,
        page: 1,
        pagination: false,
      })
    ).length;
    expect((await viewer.get('/console/campaigns')).body).not.toContain('New mailing');
    const res = await viewer.post('/console/campaigns/mailings', {
      _csrf: viewer.csrf,
      subject: 'Nope',
      from_email: `x@${a.domain}`,
      html_part: '<p>x</p>',
    });
    expect(res.statusCode).toBe(403);
    expect(
      (
        await mailingsOf(t.ctx, a.account.customer_id, {
          order_by: 'created_at',
          order: 'desc',
          items: 100,
          page: 1,
          pagination: false,
        })
      ).length,
    ).toBe(count);
  });
});
