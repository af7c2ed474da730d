/** The campaigns pages over HTTP: compose (text made from the HTML), test send, send, live progress JSON, pause, resume and cancel; postal address and preview. */
import { describe, expect, it } from 'vitest';
import { consoleTestBed } from '../console.test-support.ts';
import { createList } from '../../marketing/lists/lists.service.ts';
import { createSubscriber } from '../../marketing/subscribers/subscribers.service.ts';
import { mailingsOf, mailingOf } from '../../marketing/mailings/mailings.service.ts';
import { addSuppression } from '../../accounts/suppressions.service.ts';
import { setSubscribed } from '../../marketing/subscribers/subscribers.service.ts';
import { confirmedSend, reviewSend } from './campaigns.test-support.ts';

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
    const res = await confirmedSend(editor, id, { list: String(list.id) });
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

  it('schedules a send for a time in the user’s zone, named on the review page', async () => {
    const id = await compose('Later');
    const list = await createList(t.ctx, a.account.customer_id, 'Later list');
    await createSubscriber(t.ctx, a.account.customer_id, { email: 'later@example.org' }, list.id);
    const choice = { list: String(list.id), send_at: '2099-01-02T03:04', tz: 'Europe/Berlin' };
    const { page } = await reviewSend(editor, id, choice);
    expect(page.body).toContain('Fri, 2 Jan 2099, 03:04 (Europe/Berlin)');
    expect(page.body).toContain('2099-01-02 02:04 UTC');
    expect(page.body).toContain('Schedule for 1 person');
    const res = await confirmedSend(editor, id, choice);
    const body = (await editor.get(res.headers.location as string)).body;
    expect(body).toContain('scheduled');
    expect(body).toContain('2099-01-02 02:04 UTC');
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

  it('reviews a send: the list, who gets it after unsubscriptions and suppressions, the time, the test', async () => {
    const id = await compose('Reviewed');
    const list = await createList(t.ctx, a.account.customer_id, 'Review list');
    const subs = [];
    for (const email of ['r1@example.org', 'r2@example.org', 'r3@example.org', 'r4@example.org'])
      subs.push(await createSubscriber(t.ctx, a.account.customer_id, { email }, list.id));
    await setSubscribed(t.ctx, a.account.customer_id, subs[1]!.id, false, list.id);
    await addSuppression(t.ctx, a.account.customer_id, 'R3@example.org');
    const first = await reviewSend(editor, id, { list: String(list.id) });
    expect(first.page.body).toContain('Review list');
    expect(first.page.body).toMatch(/<strong>2 people<\/strong>/);
    expect(first.page.body).toContain('left out: 1 unsubscribed or not confirmed, 1 on the suppression list');
    expect(first.page.body).toContain('Now, as soon as you press the button');
    expect(first.page.body).toContain('No test was sent.');
    await editor.post(`/console/campaigns/mailings/${id}/test`, {
      _csrf: editor.csrf,
      to_email: 'me@example.org',
    });
    expect((await reviewSend(editor, id, { list: String(list.id) })).page.body).toContain(
      'A test went to me@example.org',
    );
    // Nothing is chosen for the user: no list, no review.
    const none = await reviewSend(editor, id, { list: '' });
    expect(none.page.statusCode).toBe(400);
    expect(none.confirm).toBeUndefined();
    expect(none.page.body).toContain('choose the list to send to');
    const past = await reviewSend(editor, id, { list: String(list.id), send_at: '2020-01-01T10:00' });
    expect(past.page.body).toContain('the send time has passed');
  });

  it('sends only with the review’s confirmation, and only once', async () => {
    const id = await compose('Once only');
    const list = await createList(t.ctx, a.account.customer_id, 'Once list');
    await createSubscriber(t.ctx, a.account.customer_id, { email: 'once@example.org' }, list.id);
    const sends = async () =>
      Number(
        (
          await t.ctx.database.db
            .selectFrom('campaign_mailing_sends as s')
            .innerJoin('campaign_mailings as m', 'm.id', 's.campaign_mailing_id')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('m.subject', '=', 'Once only')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const bare = await editor.post(`/console/campaigns/mailings/${id}/send`, {
      _csrf: editor.csrf,
      list: String(list.id),
      send_at: '',
      tz: 'UTC',
    });
    expect(bare.statusCode).toBe(303);
    expect(bare.headers.location).toBe(`/console/campaigns/mailings/${id}`);
    expect((await editor.get(bare.headers.location as string)).body).toContain(
      'review the send and confirm it',
    );
    // A confirmation made for another list does not send to this one.
    const other = await createList(t.ctx, a.account.customer_id, 'Other list');
    await createSubscriber(t.ctx, a.account.customer_id, { email: 'other@example.org' }, other.id);
    const { confirm } = await reviewSend(editor, id, { list: String(other.id) });
    const swapped = await editor.post(`/console/campaigns/mailings/${id}/send`, {
      _csrf: editor.csrf,
      list: String(list.id),
      send_at: '',
      tz: 'UTC',
      confirm: confirm!,
    });
    expect(swapped.headers.location).toBe(`/console/campaigns/mailings/${id}`);
    expect(await sends()).toBe(0);

    const { confirm: ok } = await reviewSend(editor, id, { list: String(list.id) });
    const form = { _csrf: editor.csrf, list: String(list.id), send_at: '', tz: 'UTC', confirm: ok! };
    const [one, two] = await Promise.all([
      editor.post(`/console/campaigns/mailings/${id}/send`, form),
      editor.post(`/console/campaigns/mailings/${id}/send`, form),
    ]);
    expect(
      [one.headers.location, two.headers.location].filter((l) => /\/sends\//.test(String(l))),
    ).toHaveLength(1);
    expect(await sends()).toBe(1);
    const again = await editor.post(`/console/campaigns/mailings/${id}/send`, form);
    expect(again.headers.location).toBe(`/console/campaigns/mailings/${id}`);
    expect((await editor.get(`/console/campaigns/mailings/${id}`)).body).toContain('already sent');
    expect(await sends()).toBe(1);
  });

  it('edits and deletes a mailing until it is sent, then only duplicates it', async () => {
    const id = await compose('Draft');
    const edited = await editor.post(`/console/campaigns/mailings/${id}/edit`, {
      _csrf: editor.csrf,
      subject: 'Draft, edited',
      from_email: `news@${a.domain}`,
      from_name: 'Clinic',
      html_part: '<p>Changed</p>',
      text_part: '',
    });
    expect(edited.headers.location).toBe(`/console/campaigns/mailings/${id}`);
    expect((await mailingOf(t.ctx, a.account.customer_id, id)).attributes.html_part).toBe('<p>Changed</p>');
    const page = (await editor.get(`/console/campaigns/mailings/${id}`)).body;
    expect(page).toContain('Edit mailing');
    expect(page).toContain('Delete mailing');

    const list = await createList(t.ctx, a.account.customer_id, 'Draft list');
    await createSubscriber(t.ctx, a.account.customer_id, { email: 'draft@example.org' }, list.id);
    await confirmedSend(editor, id, { list: String(list.id) });
    const sent = (await editor.get(`/console/campaigns/mailings/${id}`)).body;
    expect(sent).toContain('This mailing was sent, so it can no longer change');
    expect(sent).not.toContain('Edit mailing');
    expect(sent).not.toContain('Delete mailing');
    expect(sent).not.toContain('Review the send');
    const refused = await editor.post(`/console/campaigns/mailings/${id}/edit`, {
      _csrf: editor.csrf,
      subject: 'Rewritten after the fact',
      from_email: `news@${a.domain}`,
      html_part: '<p>Rewritten</p>',
      text_part: '',
    });
    expect(refused.headers.location).toBe(`/console/campaigns/mailings/${id}`);
    expect((await mailingOf(t.ctx, a.account.customer_id, id)).attributes.subject).toBe('Draft, edited');
    await editor.post(`/console/campaigns/mailings/${id}/delete`, { _csrf: editor.csrf });
    expect((await mailingOf(t.ctx, a.account.customer_id, id)).attributes.subject).toBe('Draft, edited');

    const copy = await editor.post(`/console/campaigns/mailings/${id}/duplicate`, { _csrf: editor.csrf });
    const copyId = (copy.headers.location as string).split('/').pop()!;
    expect(copyId).not.toBe(id);
    const m = await mailingOf(t.ctx, a.account.customer_id, copyId);
    expect(m.attributes.subject).toBe('Draft, edited (copy)');
    expect(m.attributes.html_part).toBe('<p>Changed</p>');
    expect((await editor.get(`/console/campaigns/mailings/${copyId}`)).body).toContain('Review the send');
    expect(
      (await viewer.post(`/console/campaigns/mailings/${copyId}/delete`, { _csrf: viewer.csrf })).statusCode,
    ).toBe(403);
    const deleted = await editor.post(`/console/campaigns/mailings/${copyId}/delete`, { _csrf: editor.csrf });
    expect(deleted.headers.location).toBe('/console/campaigns');
    expect((await editor.get(`/console/campaigns/mailings/${copyId}`)).statusCode).toBe(404);
  });
});
