/** `GET /v1/<api_username>/status` (the Ruby client's `api_status`): public, and the same whatever the username. */
import { describe, expect, it } from 'vitest';
import { emailTestBed } from '../email/email.test-support.ts';

const { t } = emailTestBed('statusacme');

describe('the API status', () => {
  it('answers without a key, the same for any username', async () => {
    const known = await t.app.inject({ method: 'GET', url: '/v1/statusacme/status' });
    const unknown = await t.app.inject({ method: 'GET', url: '/v1/nobody-by-this-name/status' });
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual({ status: 'ok', data: 'Service OK' });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toBe(known.body);
  });

  it('ignores a wrong key rather than telling about it', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/statusacme/status',
      headers: { accept: 'application/json', authorization: 'Token token=wrong' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', data: 'Service OK' });
  });

  it('still needs a key for every other email path', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/statusacme/schedule/x' });
    expect(res.statusCode).toBe(401);
    expect(res.json().errors[0].title).toBe('Authentication required');
  });
});
