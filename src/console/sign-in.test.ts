/** Sign-in protections over HTTP: lock-out after repeated failures (stored in the database), two-factor enrolment and sign-in, mandatory two-factor. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import {
  createTestUser,
  mergeCookies,
  openForm,
  postFields,
  postSignIn,
  signInClient,
  signInState,
  TEST_PASSWORD,
  codeFor,
  enrol,
} from './console.test-support.ts';
import { issueUserLink } from '../users/users.service.ts';

let t: TestApp;
let a: TestAccount;

beforeAll(async () => {
  t = await createTestApp({ config: { consoleSignInMaxFailures: 3 } });
  a = await t.createAccount();
});
afterAll(async () => t?.close());

/** Posts the sign-in form from a fresh browser; returns the response and the cookies. */
const trySignIn = (email: string, password: string) => postSignIn(t.app, email, password);

describe('sign-in lock-out', () => {
  it('locks an address after the configured failures, even for the right password, and says for how long', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'viewer');
    for (let i = 0; i < 3; i++) expect((await trySignIn(u.email, 'wrong password')).res.statusCode).toBe(401);
    const locked = await trySignIn(u.email, TEST_PASSWORD);
    expect(locked.res.statusCode).toBe(429);
    expect(locked.res.body).toContain('Too many failed sign-ins: try again in 15 minutes.');
    expect(locked.res.headers['retry-after']).toBeDefined();
    const row = await t.ctx.database.db
      .selectFrom('sign_in_throttles')
      .selectAll()
      .where('key', '=', `email:${u.email}`)
      .executeTakeFirstOrThrow();
    expect(Number(row.locked_until)).toBeGreaterThan(Date.now());
  });
});

describe('concurrent sign-ins', () => {
  it('checks at most the limit of passwords when 40 sign-ins arrive at once, and then refuses the right one', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'viewer');
    const remoteAddress = '203.0.113.50';
    const forms: Awaited<ReturnType<typeof openForm>>[] = [];
    for (let i = 0; i < 41; i++) forms.push(await openForm(t.app));
    const post = (f: (typeof forms)[number], password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/console/sign-in',
        remoteAddress,
        headers: { cookie: f.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          _csrf: f.token,
          email: u.email,
          password,
          next: '/console',
        }).toString(),
      });
    const answers = await Promise.all(forms.slice(0, 40).map((f) => post(f, 'wrong password')));
    expect(answers.every((r) => r.statusCode === 401 || r.statusCode === 429)).toBe(true);
    const checked = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('target', '=', `user:${u.id}`)
      .where('action', '=', 'sign_in.failure')
      .execute();
    expect(checked.length).toBeLessThanOrEqual(3);
    expect(answers.filter((r) => r.statusCode === 429).length).toBeGreaterThanOrEqual(37);
    expect((await post(forms[40]!, TEST_PASSWORD)).statusCode).toBe(429);
  });
});

describe('two-factor', () => {
  it('enrols with a QR code and a first code, then asks for a code at sign-in and refuses a wrong one', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'editor');
    const secret = await enrol(await signInClient(t.app, u.email), u.email);

    const { res, cookie } = await trySignIn(u.email, TEST_PASSWORD);
    expect(res.headers.location).toBe('/console/sign-in/two-factor?next=%2Fconsole');
    expect((await t.app.inject({ method: 'GET', url: '/console', headers: { cookie } })).statusCode).toBe(
      303,
    );
    const form = await t.app.inject({
      method: 'GET',
      url: res.headers.location as string,
      headers: { cookie },
    });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const post = (code: string) =>
      t.app.inject({
        method: 'POST',
        url: '/console/sign-in/two-factor',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, code, next: '/console/settings' }).toString(),
      });
    expect((await post('123456')).statusCode).toBe(401);
    // The enrolment used up the current step's code: the next step's code (within the drift window) signs in.
    const ok = await post(codeFor(secret, u.email, 30_000));
    expect(ok.headers.location).toBe('/console/settings');
    expect(
      (await t.app.inject({ method: 'GET', url: '/console/settings', headers: { cookie } })).statusCode,
    ).toBe(200);
  });

  it('refuses a code that was already accepted, and a code of an earlier step, at the next sign-in', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'editor');
    const secret = await enrol(await signInClient(t.app, u.email), u.email);
    const secondFactor = async (code: string) => {
      const { res, cookie } = await trySignIn(u.email, TEST_PASSWORD);
      const url = res.headers.location as string;
      const form = await t.app.inject({ method: 'GET', url, headers: { cookie } });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
      return t.app.inject({
        method: 'POST',
        url: '/console/sign-in/two-factor',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, code, next: '/console' }).toString(),
      });
    };
    const next = codeFor(secret, u.email, 30_000);
    expect((await secondFactor(next)).statusCode).toBe(303);
    const replayed = await secondFactor(next);
    expect(replayed.statusCode).toBe(401);
    expect(replayed.body).toContain('That code is not right');
    expect((await secondFactor(codeFor(secret, u.email))).statusCode).toBe(401);
    const row = await t.ctx.database.db
      .selectFrom('users')
      .select('totp_last_step')
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.totp_last_step)).toBeGreaterThanOrEqual(Math.floor((Date.now() + 30_000) / 30_000) - 1);
    const failures = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('target', '=', `user:${u.id}`)
      .where('action', '=', 'sign_in.failure')
      .execute();
    expect(failures.length).toBe(2);
  });
});

/** The error notice a page shows. */
const notice = (text: string) => `<div class="flash flash-error" role="alert">${text}</div>`;
const LONG = 'x'.repeat(10_000);

describe('forms the schema refuses', () => {
  it('shows the sign-in page again with the reason, opens no session and counts no failed sign-in', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'viewer');
    const cases: [[string, string][], string][] = [
      [[['password', TEST_PASSWORD]], 'Email is required.'],
      [
        [
          ['email', u.email],
          ['email', 'other@example.com'],
          ['password', TEST_PASSWORD],
        ],
        'Email must be string.',
      ],
      [
        [
          ['email', u.email],
          ['password', LONG],
        ],
        'Password must NOT have more than 1000 characters.',
      ],
      [
        [
          ['email', LONG],
          ['password', TEST_PASSWORD],
        ],
        'Email must NOT have more than 320 characters.',
      ],
    ];
    for (const [fields, reason] of cases) {
      const { cookie, token } = await openForm(t.app);
      const before = await signInState(t);
      const res = await postFields(t.app, '/console/sign-in', cookie, [
        ['_csrf', token],
        ['next', '/console/settings'],
        ...fields,
      ]);
      expect(res.statusCode, reason).toBe(400);
      expect(res.body).toContain(notice(reason));
      expect(res.body).toContain('<form method="post" action="/console/sign-in"');
      expect(res.body).toContain('name="next" value="/console/settings"');
      expect(mergeCookies('', res.headers['set-cookie'])).not.toMatch(/sealpost_console=/);
      expect(await signInState(t)).toEqual(before);
    }
    expect((await trySignIn(u.email, TEST_PASSWORD)).res.statusCode).toBe(303);
  });

  it('checks the form token first: a repeated token is an expired form', async () => {
    const { cookie, token } = await openForm(t.app);
    const res = await postFields(t.app, '/console/sign-in', cookie, [
      ['_csrf', token],
      ['_csrf', token],
      ['email', 'someone@example.com'],
      ['password', TEST_PASSWORD],
    ]);
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain(notice('The form had expired. Please try again.'));
  });

  it('shows the code step again with the reason, keeps the session waiting and counts no failure', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'editor');
    const secret = await enrol(await signInClient(t.app, u.email), u.email);
    const { res, cookie } = await trySignIn(u.email, TEST_PASSWORD);
    const page = await t.app.inject({
      method: 'GET',
      url: res.headers.location as string,
      headers: { cookie },
    });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const cases: [[string, string][], string][] = [
      [[], 'Code is required.'],
      [
        [
          ['code', '123456'],
          ['code', '654321'],
        ],
        'Code must be string.',
      ],
      [[['code', LONG]], 'Code must NOT have more than 64 characters.'],
    ];
    for (const [fields, reason] of cases) {
      const before = await signInState(t);
      const refused = await postFields(t.app, '/console/sign-in/two-factor', cookie, [
        ['_csrf', csrf],
        ['next', '/console/settings'],
        ...fields,
      ]);
      expect(refused.statusCode, reason).toBe(400);
      expect(refused.body).toContain(notice(reason));
      expect(refused.body).toContain('<form method="post" action="/console/sign-in/two-factor"');
      expect(await signInState(t)).toEqual(before);
    }
    const ok = await postFields(t.app, '/console/sign-in/two-factor', cookie, [
      ['_csrf', csrf],
      ['code', codeFor(secret, u.email, 30_000)],
      ['next', '/console/settings'],
    ]);
    expect(ok.headers.location).toBe('/console/settings');
  });

  it('refuses a sign-out without one matching token and keeps the session', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'viewer');
    const c = await signInClient(t.app, u.email);
    for (const fields of [
      [],
      [
        ['_csrf', c.csrf],
        ['_csrf', c.csrf],
      ],
      [['_csrf', LONG]],
    ] as [string, string][][]) {
      const before = await signInState(t);
      const res = await postFields(t.app, '/console/sign-out', c.cookie, fields);
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('This form has expired; go back, reload the page and try again.');
      expect(await signInState(t)).toEqual(before);
      expect((await c.get('/console/settings')).statusCode).toBe(200);
    }
    const out = await postFields(t.app, '/console/sign-out', c.cookie, [['_csrf', c.csrf]]);
    expect(out.headers.location).toBe('/console/sign-in?signed_out');
    expect((await c.get('/console/settings')).statusCode).toBe(303);
  });

  it('shows the forgot-password page again with the reason and sends no link', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'viewer');
    const cases: [[string, string][], string][] = [
      [[], 'Email is required.'],
      [
        [
          ['email', u.email],
          ['email', u.email],
        ],
        'Email must be string.',
      ],
      [[['email', LONG]], 'Email must NOT have more than 320 characters.'],
    ];
    for (const [fields, reason] of cases) {
      const { cookie, token } = await openForm(t.app, '/console/forgot-password');
      const before = await signInState(t);
      const res = await postFields(t.app, '/console/forgot-password', cookie, [['_csrf', token], ...fields]);
      expect(res.statusCode, reason).toBe(400);
      expect(res.body).toContain(notice(reason));
      expect(res.body).toContain('<form method="post" action="/console/forgot-password"');
      expect(await signInState(t)).toEqual(before);
    }
  });

  it('shows the set-password page again with the reason, or the link page for a token it cannot read, and keeps the link', async () => {
    const u = await createTestUser(t, a.account.customer_id, 'viewer');
    const token = await issueUserLink(t.ctx.database.db, u, 'reset');
    const fresh = 'a new passphrase of words';
    const linkPage = 'This link is not valid: it may have expired or been used already.';
    const cases: [[string, string][], string][] = [
      [
        [
          ['password', fresh],
          ['confirm', fresh],
        ],
        linkPage,
      ],
      [
        [
          ['token', token],
          ['token', token],
          ['password', fresh],
          ['confirm', fresh],
        ],
        linkPage,
      ],
      [
        [
          ['token', token],
          ['password', fresh],
          ['password', fresh],
          ['confirm', fresh],
        ],
        notice('Password must be string.'),
      ],
      [
        [
          ['token', token],
          ['password', LONG],
          ['confirm', LONG],
        ],
        notice(
          'Password must NOT have more than 1000 characters; confirm must NOT have more than 1000 characters.',
        ),
      ],
    ];
    for (const [fields, answer] of cases) {
      const before = await signInState(t);
      const res = await postFields(t.app, '/console/set-password', '', fields);
      expect(res.statusCode, answer).toBe(400);
      expect(res.body).toContain(answer);
      expect(await signInState(t)).toEqual(before);
    }
    const set = await postFields(t.app, '/console/set-password', '', [
      ['token', token],
      ['password', fresh],
      ['confirm', fresh],
    ]);
    expect(set.statusCode).toBe(303);
    expect(set.headers.location).toBe('/console/sign-in?password_set');
    expect((await postSignIn(t.app, u.email, fresh)).res.statusCode).toBe(303);
  });
});
