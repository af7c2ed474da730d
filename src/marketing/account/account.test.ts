import { describe, expect, it } from 'vitest';
import { makeSubscriber, marketingClient, marketingTestBed } from '../marketing.test-support.ts';

const { t, a, call } = marketingTestBed();
const fieldTypeKey = async (uuid: string) =>
  Number(
    (
      await t.ctx.database.db
        .selectFrom('subscriber_custom_field_types')
        .select('id')
        .where('uuid', '=', uuid)
        .executeTakeFirstOrThrow()
    ).id,
  );

describe('current customer and custom field types', () => {
  it('answers the account the key belongs to, under both prefixes', async () => {
    for (const c of [call, marketingClient(t, a, { bare: true, bearer: true })]) {
      const res = await c('GET', '/current_customer');
      expect(res.json()).toEqual({
        data: {
          id: String(a.account.customer_id),
          type: 'customer',
          attributes: { username: a.account.username, created_at: expect.any(String) },
        },
      });
    }
  });

  it('lists, creates and renames custom field types; values follow a rename', async () => {
    const sub = await makeSubscriber(call, 'cf@example.org', {
      custom_fields: [{ name: 'Colour', value: 'teal' }],
    });
    const created = await call('POST', '/subscriber_custom_field_types', {
      subscriber_custom_field_type: { name: 'Clinic' },
    });
    expect(created.statusCode, created.body).toBe(200);
    expect((await call('POST', '/subscriber_custom_field_types', { name: 'clinic' })).json().error_code).toBe(
      'marketing.custom_field_invalid',
    );
    const list = (await call('GET', '/subscriber_custom_field_types')).json().data as {
      id: string;
      attributes: { name: string };
    }[];
    expect(list.map((x) => x.attributes.name)).toEqual(['Colour', 'Clinic']);
    const renamed = await call('PATCH', `/subscriber_custom_field_types/${list[0]!.id}`, {
      name: 'Favourite colour',
    });
    expect(renamed.json().data.attributes.name).toBe('Favourite colour');
    // Custom field types key on UUIDs, as clients validate; the integer key is still taken.
    expect(list[0]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const key = await fieldTypeKey(list[1]!.id);
    const byKey = await call('PATCH', `/subscriber_custom_field_types/${key}`, { name: 'Clinic' });
    expect(byKey.json().data).toMatchObject({ id: list[1]!.id, attributes: { name: 'Clinic' } });
    const fields = (await call('GET', `/subscribers/${sub}`)).json().data.attributes.custom_fields;
    expect(fields).toEqual([
      {
        subscriber_custom_field_type_id: list[0]!.id,
        custom_field_name: 'Favourite colour',
        custom_field_value: 'teal',
        name: 'Favourite colour',
        value: 'teal',
      },
    ]);
    expect((await call('PATCH', '/subscriber_custom_field_types/999999', { name: 'x' })).statusCode).toBe(
      404,
    );
    expect(
      (await call('PATCH', `/subscriber_custom_field_types/${list[0]!.id}`, { name: 'Clinic' })).statusCode,
    ).toBe(400);
  });
});
