import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { keyOf, marketingClient } from '../marketing.test-support.ts';
import { makeMailing, storeSend } from './mailings.test-support.ts';

let t: TestApp;
let a: TestAccount;
let other: TestAccount;
let call: ReturnType<typeof marketingClient>;
let n = 0;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  other = await t.createAccount();
  call = marketingClient(t, a);
});
afterAll(() => t.close());

const fresh = (who: TestAccount = a) => makeMailing(marketingClient(t, who), `Mailing ${++n}`);
const exists = async (id: string, who: TestAccount = a) =>
  (await marketingClient(t, who)('GET', `/campaign_mailings/${id}`)).statusCode === 200;
const rowsOf = async (table: 'campaign_mailing_sends' | 'marketing_deliveries', mailingKey: number) =>
  (
    await t.ctx.database.db
      .selectFrom(table)
      .select('id')
      .where('campaign_mailing_id', '=', mailingKey)
      .execute()
  ).length;
/** A DELETE with a JSON body, as clients send the bulk delete. */
const deleteWithBody = (body: string) =>
  t.app.inject({
    method: 'DELETE',
    url: `/v1/marketing/${a.account.username}/campaign_mailings_bulk_delete`,
    headers: { authorization: `Token token=${a.key}`, 'content-type': 'application/json' },
    payload: body,
  });

describe('DELETE /campaign_mailings/<id>', () => {
  it('deletes the mailing with its sends and deliveries', async () => {
    const id = await fresh();
    await storeSend(t, a.account.customer_id, id, 'sent');
    const key = await keyOf(t, 'campaign_mailings', id);
    const res = await call('DELETE', `/campaign_mailings/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({});
    expect(await exists(id)).toBe(false);
    expect([await rowsOf('campaign_mailing_sends', key), await rowsOf('marketing_deliveries', key)]).toEqual([
      0, 0,
    ]);
  });

  it.each(['expanding', 'sending'])(
    'refuses a mailing with a send in state %s with 409 and keeps everything',
    async (state) => {
      const id = await fresh();
      await storeSend(t, a.account.customer_id, id, state);
      const res = await call('DELETE', `/campaign_mailings/${id}`);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        error_code: 'marketing.mailing_in_use',
        campaign_mailing_ids: [Number(id)],
      });
      expect(await exists(id)).toBe(true);
      expect(await rowsOf('marketing_deliveries', await keyOf(t, 'campaign_mailings', id))).toBe(1);
    },
  );

  it.each(['scheduled', 'cancelled'])('deletes a mailing whose send is %s', async (state) => {
    const id = await fresh();
    await storeSend(t, a.account.customer_id, id, state);
    expect((await call('DELETE', `/campaign_mailings/${id}`)).statusCode).toBe(200);
    expect(await exists(id)).toBe(false);
  });

  it("answers 404 for an unknown id and for another account's mailing, which stays", async () => {
    expect((await call('DELETE', '/campaign_mailings/777777')).json()).toMatchObject({
      error_code: 'marketing.mailing_not_found',
    });
    const theirs = await fresh(other);
    expect((await call('DELETE', `/campaign_mailings/${theirs}`)).statusCode).toBe(404);
    expect(await exists(theirs, other)).toBe(true);
  });
});

describe('DELETE /campaign_mailings_bulk_delete', () => {
  it('deletes the ids given in a JSON body, also in the older integer form', async () => {
    const [x, y, keep] = [await fresh(), await fresh(), await fresh()];
    const res = await deleteWithBody(
      JSON.stringify({ campaign_mailing_ids: [x, await keyOf(t, 'campaign_mailings', y)] }),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({});
    expect([await exists(x), await exists(y), await exists(keep)]).toEqual([false, false, true]);
  });

  it('deletes the ids given comma-separated in the query', async () => {
    const [x, y] = [await fresh(), await fresh()];
    expect(
      (await call('DELETE', `/campaign_mailings_bulk_delete?campaign_mailing_ids=${x},${y}`)).statusCode,
    ).toBe(200);
    expect([await exists(x), await exists(y)]).toEqual([false, false]);
  });

  it('deletes the ids given as a repeated query parameter', async () => {
    const [x, y] = [await fresh(), await fresh()];
    const res = await call(
      'DELETE',
      `/campaign_mailings_bulk_delete?campaign_mailing_ids[]=${x}&campaign_mailing_ids[]=${y}`,
    );
    expect(res.statusCode).toBe(200);
    expect([await exists(x), await exists(y)]).toEqual([false, false]);
  });

  it('deletes the ids given comma-separated in the body', async () => {
    const x = await fresh();
    expect((await deleteWithBody(JSON.stringify({ campaign_mailing_ids: `${x}, 999999` }))).statusCode).toBe(
      200,
    );
    expect(await exists(x)).toBe(false);
  });

  it.each([
    ['no ids at all', ''],
    ['a null body', 'null'],
    ['an empty array', JSON.stringify({ campaign_mailing_ids: [] })],
  ])('is a no-op answering {} for %s', async (_what, body) => {
    const x = await fresh();
    const res =
      body === '' ? await call('DELETE', '/campaign_mailings_bulk_delete') : await deleteWithBody(body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({});
    expect(await exists(x)).toBe(true);
  });

  it('ignores ids of other accounts and ids that are not ids', async () => {
    const mine = await fresh();
    const theirs = await fresh(other);
    expect(
      (await deleteWithBody(JSON.stringify({ campaign_mailing_ids: [mine, theirs, 'abc', '-1'] })))
        .statusCode,
    ).toBe(200);
    expect([await exists(mine), await exists(theirs, other)]).toEqual([false, true]);
  });

  it('refuses the whole request with 409 when one mailing is sending, and deletes none', async () => {
    const [idle, busy] = [await fresh(), await fresh()];
    await storeSend(t, a.account.customer_id, busy, 'sending');
    const res = await deleteWithBody(JSON.stringify({ campaign_mailing_ids: [idle, busy] }));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      error_code: 'marketing.mailing_in_use',
      campaign_mailing_ids: [Number(busy)],
    });
    expect([await exists(idle), await exists(busy)]).toEqual([true, true]);
  });

  it('refuses a body that is not JSON with 400', async () => {
    const x = await fresh();
    expect((await deleteWithBody('{"campaign_mailing_ids": [')).statusCode).toBe(400);
    expect(await exists(x)).toBe(true);
  });
});
