/**
 * Subscribers with a phone number, as the Paubox marketing command line creates them (`--phone`, with or without
 * `--email`): the number is stored in E.164 beside the input as typed, a phone-only subscriber has no email, and a
 * campaign leaves it out as unreachable by email.
 */
import { describe, expect, it } from 'vitest';
import { makeList, makeSubscriber, marketingClient } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { sinkTestBed, startSendOf, waitUntilSent } from '../campaigns/sends.test-support.ts';

const { t, acct, sink, call, startWorker } = sinkTestBed();
const cli = () => marketingClient(t, acct, { bare: true, bearer: true });
const count = async () => (await t.ctx.database.db.selectFrom('subscribers').select('id').execute()).length;

describe('subscribers with a phone number', () => {
  it('creates a subscriber from a phone number alone, stored as E.164 beside the input', async () => {
    const res = await cli()('POST', '/subscribers', {
      subscriber: { phone_number: '+1 (415) 555-0100', first_name: 'Pat' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.attributes).toMatchObject({ email: null, full_name: 'Pat' });
    const attrs = (await cli()('GET', `/subscribers/${res.json().data.id}`)).json().data.attributes;
    expect(attrs).toMatchObject({
      email: null,
      phone_number: '+14155550100',
      phone_number_input: '+1 (415) 555-0100',
    });
  });

  it('refuses an unparseable number with 400 naming the field, and stores nothing', async () => {
    const before = await count();
    const res = await cli()('POST', '/subscribers', {
      subscriber: { email: 'bad-phone@example.org', phone_number: '+1 555 0100' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error_code: 'marketing.invalid_phone',
      fields: [{ field: 'subscriber.phone_number' }],
    });
    expect(await count()).toBe(before);
    const id = await makeSubscriber(call, 'patch-phone@example.org');
    const patched = await cli()('PATCH', `/subscribers/${id}`, { subscriber: { phone_number: 'call me' } });
    expect(patched.json()).toMatchObject({ fields: [{ field: 'subscriber.phone_number' }] });
  });

  it('refuses a subscriber with neither email nor phone, naming subscriber.email', async () => {
    const res = await cli()('POST', '/subscribers', { subscriber: { first_name: 'Nobody' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ fields: [{ field: 'subscriber.email' }] });
  });

  it('keeps one phone-only subscriber per number: the same number again is 409', async () => {
    await cli()('POST', '/subscribers', { subscriber: { phone_number: '+44 20 7946 0018' } });
    const again = await cli()('POST', '/subscribers', { subscriber: { phone_number: '+442079460018' } });
    expect(again.statusCode).toBe(409);
    expect(again.json().error_code).toBe('marketing.subscriber_exists');
  });

  it('keeps the number of a subscriber known by phone only when an update sends it empty', async () => {
    const id = (await cli()('POST', '/subscribers', { subscriber: { phone_number: '+49 30 901820' } })).json()
      .data.id;
    const res = await cli()('PATCH', `/subscribers/${id}`, { subscriber: { phone_number: '' } });
    expect(res.statusCode).toBe(200);
    const kept = (await cli()('GET', `/subscribers/${id}`)).json().data.attributes;
    expect(kept.phone_number).toBe('+4930901820');
    const added = await cli()('PATCH', `/subscribers/${id}`, { subscriber: { email: 'now@example.org' } });
    expect(added.json().data.attributes.email).toBe('now@example.org');
  });

  it('leaves phone-only subscribers out of a campaign send', async () => {
    const list = await makeList(call, 'Phones and emails');
    await makeSubscriber(call, 'mailable@patients.example', {}, list);
    const phoneOnly = await cli()('POST', '/subscribers', {
      subscriber: { phone_number: '+1 201-555-0123' },
      subscription_list_id: list,
    });
    expect(phoneOnly.statusCode, phoneOnly.body).toBe(200);
    const mailing = await makeMailing(call, 'Hello', { from_email: `news@${acct.domain}` });
    startWorker();
    const sendId = await startSendOf(call, acct, mailing, list);
    await waitUntilSent(call, sendId);
    const deliveries = await t.ctx.database.db
      .selectFrom('marketing_deliveries')
      .select('email')
      .where('email', 'in', ['mailable@patients.example', ''])
      .execute();
    expect(deliveries.map((d) => d.email)).toEqual(['mailable@patients.example']);
    expect(sink.received.some((m) => m.to.includes('mailable@patients.example'))).toBe(true);
  });

  it('stores phone numbers sent in a bulk create, and refuses the whole batch for one bad number', async () => {
    const res = await cli()('POST', '/subscribers_bulk_create', {
      subscribers: [
        { email: 'bulkphone@example.org', phone_number: '+44 20 7946 0958' },
        { email: 'bulknophone@example.org' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const find = async (q: string) => (await cli()('GET', `/subscribers?search=${q}`)).json().data[0].id;
    const attrs = async (q: string) =>
      (await cli()('GET', `/subscribers/${await find(q)}`)).json().data.attributes;
    expect(await attrs('bulkphone')).toMatchObject({
      phone_number: '+442079460958',
      phone_number_input: '+44 20 7946 0958',
    });
    expect((await attrs('bulknophone')).phone_number).toBeNull();
    // A repeat updates the number of the existing subscriber.
    await cli()('POST', '/subscribers_bulk_create', {
      subscribers: [{ email: 'bulknophone@example.org', phone_number: '+1 415 555 0101' }],
    });
    expect((await attrs('bulknophone')).phone_number).toBe('+14155550101');
    const before = await count();
    const bad = await cli()('POST', '/subscribers_bulk_create', {
      subscribers: [
        { email: 'bulk-new@example.org' },
        { email: 'bulk-bad@example.org', phone_number: '555' },
      ],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      error_code: 'marketing.invalid_phone',
      fields: [{ field: 'subscribers[1].phone_number' }],
    });
    expect(await count()).toBe(before);
  });
});
