/** Bot defence of hosted forms through the app: the time token, the proof of work, JavaScript-off degradation and the JSON door. */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { contactForm, createForm, postHosted } from '../forms.test-support.ts';
import { botKey, issueCheck, leadingZeroBits } from '../submissions/bot-check.ts';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp({ config: { formsSubmitPerMinute: 0 } });
  a = await t.createAccount();
});
afterAll(() => t.close());

const ANSWERS = { name: 'Grace', email: 'grace@example.org', consent: 'true', topic: 'Billing' };

const defended = (settings: Record<string, unknown>) =>
  createForm(t.app, a.auth, { form_json: { ...contactForm(), settings } });

const post = (id: string, fields: Record<string, string>) => postHosted(t.app, id, fields);

const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

/** A check token for the form as its page would have carried it `secondsAgo` seconds ago. */
const tokenFrom = (id: string, secondsAgo: number, bits = 0, nonce = crypto.randomUUID()) => ({
  _sp_token: nonce,
  _sp_check: issueCheck(botKey(t.ctx), id, bits, Date.now() - secondsAgo * 1000, nonce),
});

const count = async (id: string) =>
  (
    await t.app.inject({ method: 'GET', url: `/v1/forms/api/forms/${id}/submissions`, headers: a.auth })
  ).json().total as number;

/** Finds a solution of a proof-of-work challenge the way the page's script does. */
function solve(check: string, bits: number): string {
  for (let n = 0; ; n++) {
    const digest = createHash('sha256').update(`${check}:${n}`).digest();
    if (leadingZeroBits(digest) >= bits) return String(n);
  }
}

describe('bot defence off (the default)', () => {
  it('renders no check token or script, and takes a JSON submission without a key as before', async () => {
    const id = await createForm(t.app, a.auth);
    const page = (await t.app.inject({ method: 'GET', url: `/f/${id}` })).body;
    expect(page).not.toContain('_sp_check');
    expect(page).not.toContain('<script');
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/forms/api/forms/${id}/submissions`,
      payload: { form_data: { name: 'Ada', email: 'ada@example.org', consent: true } },
    });
    expect(res.statusCode).toBe(201);
    expect(await count(id)).toBe(1);
  });
});

describe('time token', () => {
  it('accepts a post made long enough after the page was shown', async () => {
    const id = await defended({ bot_defence: 'time', bot_min_seconds: 3 });
    const res = await post(id, { ...tokenFrom(id, 5), ...ANSWERS });
    expect(res.statusCode).toBe(303);
    expect(await count(id)).toBe(1);
  });

  it('refuses a post made faster than the form allows, keeps the answers and stores nothing', async () => {
    const id = await defended({ bot_defence: 'time', bot_min_seconds: 30 });
    const page = (await t.app.inject({ method: 'GET', url: `/f/${id}` })).body;
    const check = field(page, '_sp_check')!;
    const res = await post(id, { _sp_token: field(page, '_sp_token')!, _sp_check: check, ...ANSWERS });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('role="alert"');
    expect(res.body).toContain('quicker than');
    expect(res.body).toContain('value="Grace"');
    expect(field(res.body, '_sp_check')).toBe(check);
    expect(await count(id)).toBe(0);
  });

  it('refuses a forged token', async () => {
    const id = await defended({ bot_defence: 'time', bot_min_seconds: 1 });
    const real = tokenFrom(id, 0);
    const forged = issueCheck(randomBytes(32), id, 0, Date.now() - 60_000, real._sp_token);
    expect((await post(id, { ...real, _sp_check: forged, ...ANSWERS })).statusCode).toBe(403);
    const [body, sig] = real._sp_check.split('.') as [string, string];
    const payload = Buffer.from(body, 'base64url').toString().split('.');
    payload[1] = (Date.now() - 60_000).toString(36);
    const backdated = `${Buffer.from(payload.join('.')).toString('base64url')}.${sig}`;
    expect((await post(id, { ...real, _sp_check: backdated, ...ANSWERS })).statusCode).toBe(403);
    const other = await defended({ bot_defence: 'time', bot_min_seconds: 1 });
    expect((await post(id, { ...tokenFrom(other, 5), ...ANSWERS })).statusCode).toBe(403);
    expect((await post(id, { _sp_token: crypto.randomUUID(), ...ANSWERS })).statusCode).toBe(403);
    expect(await count(id)).toBe(0);
  });

  it('refuses an expired token with a fresh one in the page, keeping the answers', async () => {
    const id = await defended({ bot_defence: 'time', bot_min_seconds: 1 });
    const old = tokenFrom(id, 3 * 3600);
    const res = await post(id, { ...old, ...ANSWERS });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('value="Grace"');
    expect(field(res.body, '_sp_check')).not.toBe(old._sp_check);
    expect(await count(id)).toBe(0);
  });

  it('refuses a replayed token with other answers, and counts a double submit of the same answers once', async () => {
    const id = await defended({ bot_defence: 'time', bot_min_seconds: 1 });
    const token = tokenFrom(id, 5);
    expect((await post(id, { ...token, ...ANSWERS })).statusCode).toBe(303);
    expect((await post(id, { ...token, ...ANSWERS })).statusCode).toBe(303);
    const replay = await post(id, { ...token, ...ANSWERS, name: 'Mallory' });
    expect(replay.statusCode).toBe(403);
    expect(replay.body).toContain('already');
    expect(await count(id)).toBe(1);
  });
});

describe('proof of work', () => {
  it('serves the challenge with the solver script from the installation, and accepts a solved post', async () => {
    const id = await defended({ bot_defence: 'proof_of_work', bot_min_seconds: 1, bot_difficulty: 8 });
    const res = await t.app.inject({ method: 'GET', url: `/f/${id}` });
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    const src = /<script src="([^"]+)" defer><\/script>/.exec(res.body)![1]!;
    const script = await t.app.inject({ method: 'GET', url: src });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toContain('javascript');
    expect(res.body).toContain('data-sp-pow-bits="8"');
    const token = tokenFrom(id, 5, 8);
    const solved = await post(id, { ...token, _sp_pow: solve(token._sp_check, 8), ...ANSWERS });
    expect(solved.statusCode).toBe(303);
    expect(await count(id)).toBe(1);
  });

  it('refuses a wrong solution and stores nothing', async () => {
    const id = await defended({ bot_defence: 'proof_of_work', bot_min_seconds: 1, bot_difficulty: 20 });
    const token = tokenFrom(id, 5, 20);
    let wrong = 0;
    while (leadingZeroBits(createHash('sha256').update(`${token._sp_check}:${wrong}`).digest()) >= 20)
      wrong++;
    const res = await post(id, { ...token, _sp_pow: String(wrong), ...ANSWERS });
    expect(res.statusCode).toBe(403);
    expect(await count(id)).toBe(0);
  });

  it('with JavaScript off (no solution) falls back to the time token and the honeypot', async () => {
    const id = await defended({ bot_defence: 'proof_of_work', bot_min_seconds: 2, bot_difficulty: 16 });
    expect((await post(id, { ...tokenFrom(id, 5, 16), ...ANSWERS })).statusCode).toBe(303);
    expect((await post(id, { ...tokenFrom(id, 0, 16), ...ANSWERS })).statusCode).toBe(403);
    const trapped = await post(id, { ...tokenFrom(id, 5, 16), ...ANSWERS, _sp_website: 'spam.example' });
    expect(trapped.statusCode).toBe(303);
    expect(await count(id)).toBe(1);
  });
});

describe('the JSON door of a defended form', () => {
  it('refuses an anonymous submission with form.bot_check_failed and takes one with a key of the account', async () => {
    const id = await defended({ bot_defence: 'time' });
    const url = `/v1/forms/api/forms/${id}/submissions`;
    const payload = { form_data: { name: 'Ada', email: 'ada@example.org', consent: true } };
    const anonymous = await t.app.inject({ method: 'POST', url, payload });
    expect(anonymous.statusCode).toBe(403);
    expect(anonymous.json()).toMatchObject({
      error_code: 'form.bot_check_failed',
      reason: 'key_required',
      errors: [{ code: 403, title: 'Bot check failed' }],
    });
    const stranger = await t.createAccount();
    expect((await t.app.inject({ method: 'POST', url, payload, headers: stranger.auth })).statusCode).toBe(
      403,
    );
    expect(await count(id)).toBe(0);
    const keyed = await t.app.inject({ method: 'POST', url, payload, headers: a.auth });
    expect(keyed.statusCode).toBe(201);
    expect(await count(id)).toBe(1);
  });
});

describe('the setting through the API', () => {
  it('stores the mode and its numbers with the definition and refuses values out of range', async () => {
    const id = await defended({ bot_defence: 'proof_of_work', bot_difficulty: 12 });
    const got = await t.app.inject({ method: 'GET', url: `/v1/forms/api/forms/${id}`, headers: a.auth });
    expect(got.json().data.form_json.settings).toMatchObject({
      bot_defence: 'proof_of_work',
      bot_difficulty: 12,
    });
    for (const settings of [
      { bot_defence: 'captcha' },
      { bot_defence: 'time', bot_min_seconds: 0 },
      { bot_difficulty: 40 },
    ]) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/v1/forms/api/forms/${id}`,
        headers: a.auth,
        payload: { form_json: { ...contactForm(), settings } },
      });
      expect(res.statusCode, JSON.stringify(settings)).toBe(422);
      expect(res.json().error_code).toBe('form.invalid_definition');
    }
  });
});
