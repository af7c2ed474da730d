/** Sends and schedules narrowed by a dynamic list: the audience is the list's members the filters match when it freezes. */
import { expect, it } from 'vitest';
import { keyOf, makeList, makeSubscriber, marketingTestBed } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { expandSlice } from '../campaigns/expand.ts';

const { t, a, call } = marketingTestBed();

const recipients = async (sendId: number) =>
  (
    await t.ctx.database.db
      .selectFrom('marketing_deliveries')
      .select('email')
      .where('send_id', '=', sendId)
      .orderBy('email')
      .execute()
  ).map((r) => r.email);

it('expands a send to the members a dynamic list matches when the audience freezes, and no one who comes later', async () => {
  const list = await makeList(call, 'Patients');
  for (const [email, first_name] of [
    ['amy@p.example', 'Amy'],
    ['al@p.example', 'Al'],
    ['ben@p.example', 'Ben'],
  ])
    await makeSubscriber(call, email!, { first_name }, list);
  await makeSubscriber(call, 'ann@elsewhere.example', { first_name: 'Ann' }); // matches, but not on the list
  const dyn = await call('POST', '/dynamic_lists', {
    name: 'B names',
    filters: [[{ field: 'first_name', op: 'starts_with', terms: ['B'] }]],
  });
  const dynId = dyn.json().data.id as string;
  const mailing = await makeMailing(call, 'Segment news', {
    html_part: '<p>Hi</p>',
    from_email: `news@${a.domain}`,
    from_name: 'Clinic',
  });
  const res = await call('POST', '/campaign_mailing_schedules', {
    send_at: '2030-01-01T10:00:00Z',
    from_email: `news@${a.domain}`,
    from_name: 'Clinic',
    sender_email: 'desk@clinic.example',
    subscription_list_id: list,
    campaign_mailing_id: mailing,
    dynamic_list_id: dynId,
  });
  expect(res.statusCode, res.body).toBe(200);
  const sendId = await keyOf(
    t,
    'campaign_mailing_sends',
    String(res.headers['sealpost-campaign-mailing-send-id']),
  );
  // The dynamic list changes before the send goes out: the send uses the filters as they are when it freezes.
  await call('PATCH', `/dynamic_lists/${dynId}`, {
    filters: [[{ field: 'first_name', op: 'starts_with', terms: ['A'] }]],
  });
  await expandSlice(t.ctx, sendId, { batchSize: 1 });
  expect(await recipients(sendId)).toEqual(['al@p.example', 'amy@p.example']);
  await makeSubscriber(call, 'abe@p.example', { first_name: 'Abe' }, list);
  expect(await expandSlice(t.ctx, sendId)).toBe(0);
  expect(await recipients(sendId)).toEqual(['al@p.example', 'amy@p.example']);
});

it('sends to a dynamic list alone over all contacts, and refuses an unknown one with 404', async () => {
  const dyn = await call('POST', '/dynamic_lists', {
    name: 'Elsewhere',
    filters: [[{ field: 'email', op: 'ends_with', terms: ['@elsewhere.example'] }]],
  });
  const mailing = await makeMailing(call, 'Everyone elsewhere', {
    html_part: '<p>Hi</p>',
    from_email: `news@${a.domain}`,
    from_name: 'Clinic',
  });
  const send = (dynamic_list_id: string) =>
    call('POST', '/campaign_mailing_sends', {
      campaign_mailing_id: mailing,
      campaign_mailing_send: {
        from_email: `news@${a.domain}`,
        from_name: 'Clinic',
        sender_email: 'desk@clinic.example',
        dynamic_list_id,
      },
    });
  const res = await send(dyn.json().data.id);
  expect(res.statusCode, res.body).toBe(200);
  const sendId = await keyOf(
    t,
    'campaign_mailing_sends',
    String(res.headers['sealpost-campaign-mailing-send-id']),
  );
  await expandSlice(t.ctx, sendId);
  expect(await recipients(sendId)).toEqual(['ann@elsewhere.example']);
  expect((await send('999999')).json().error_code).toBe('marketing.dynamic_list_not_found');
});
