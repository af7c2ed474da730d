/**
 * Sign-in, sign-out and set-password routes: the console's only pages for people without a session. Each POST declares
 * its form; the form token (or the session's CSRF token) is checked first, then a form its schema refuses is answered
 * with the same page again and the schema's message, with nothing changed and no failed sign-in counted.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { record } from '../audit/audit.service.ts';
import {
  activateSession,
  closeSession,
  csrfMatches,
  openSession,
  resolveSession,
  setFlash,
  type Flash,
} from '../users/sessions.service.ts';
import { signIn, signInSecondFactor } from '../users/sign-in.service.ts';
import { MAX_PASSWORD_LENGTH } from '../users/passwords.ts';
import { setPasswordWithLink, userOfLink, type User } from '../users/users.service.ts';
import { requestPasswordReset } from '../users/members.service.ts';
import { readCookie, SESSION_COOKIE, SIGN_IN_COOKIE, writeCookie } from './cookies.ts';
import {
  forgotPasswordPage,
  messagePage,
  secondFactorPage,
  setPasswordPage,
  signInPage,
} from './sign-in.view.ts';
import { formRefusal, formRoute, postedForm, sentFields } from './page.ts';
import { Csrf, Field, Form, Text } from './action.schemas.ts';

type Query = Record<string, string | undefined>;

/** The longest email address a form takes. */
const EMAIL_MAX = 320;
/** The longest `next` target: no URL a browser was shown a page for is longer (Node's limit on the request head). */
const NEXT_MAX = 16_384;

/** The sign-in form. */
const SignInForm = Form({
  _csrf: Csrf(),
  email: Field(EMAIL_MAX),
  password: Field(MAX_PASSWORD_LENGTH),
  next: Text(NEXT_MAX),
});

/** The code step of a sign-in with two-factor authentication: the app's code, or a recovery code (`recovery=yes`). */
const TwoFactorForm = Form({ _csrf: Csrf(), code: Field(64), recovery: Text(8), next: Text(NEXT_MAX) });

/** The sign-out button. */
const SignOutForm = Form({ _csrf: Csrf() });

/** The "forgot password" form. */
const ForgotPasswordForm = Form({ _csrf: Csrf(), email: Field(EMAIL_MAX) });

/**
 * The set-password form of a one-time link: the link's token is its credential (no CSRF field). The passwords are
 * optional: an empty one gets the password rules' own message.
 */
const SetPasswordForm = Form({
  token: Field(128),
  username: Text(EMAIL_MAX),
  password: Text(MAX_PASSWORD_LENGTH),
  confirm: Text(MAX_PASSWORD_LENGTH),
});

const expiredForm = { kind: 'error', text: 'The form had expired. Please try again.' } as const;

const HERE = 'http://console.invalid';

/**
 * A `next` target: only a relative path inside the console, judged after dot segments are resolved as a browser
 * resolves them (`..`, `%2e%2e`); backslashes, whitespace and control characters (also percent-encoded), encoded slashes and double slashes are
 * refused. Anything else goes to the overview.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || /[\\\s\p{Cc}]/u.test(next)) return '/console';
  const path = next.split(/[?#]/, 1)[0]!;
  if (/%(?:2f|5c|25|[01][0-9a-f]|7f)/i.test(path) || path.includes('//')) return '/console';
  let url: URL;
  try {
    url = new URL(next, HERE);
  } catch {
    return '/console';
  }
  if (url.origin !== HERE || !/^\/console(?:\/|$)/.test(url.pathname) || url.pathname.includes('//'))
    return '/console';
  return `${url.pathname}${url.search}${url.hash}`;
}

function secureCookies(ctx: AppContext): boolean {
  return ctx.publicUrl.startsWith('https:');
}

/** The session cookie's options. */
function sessionCookie(ctx: AppContext) {
  return { secure: secureCookies(ctx), path: '/console', sameSite: 'Lax' as const };
}

function sendHtml(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

/** An error notice with the message of a refusal. */
const errorFlash = (err: AppError): Flash => ({ kind: 'error', text: err.message });

/** Sets a fresh sign-in form token cookie and returns it. */
function formToken(ctx: AppContext, reply: FastifyReply): string {
  const token = randomBytes(24).toString('base64url');
  writeCookie(reply, SIGN_IN_COOKIE, token, {
    secure: secureCookies(ctx),
    path: '/console',
    sameSite: 'Strict',
  });
  return token;
}

/** True when the form's token matches the sign-in cookie. */
function formTokenMatches(req: FastifyRequest, given: unknown): boolean {
  const cookie = readCookie(req, SIGN_IN_COOKIE);
  if (!cookie || typeof given !== 'string' || cookie.length !== given.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(given));
}

/** Answers a link that no longer works (or any refusal of a client error) with the "Link not valid" page. */
function linkNotValid(reply: FastifyReply, err: unknown): FastifyReply {
  if (!(err instanceof AppError) || err.status >= 500) throw err;
  return sendHtml(
    reply,
    err.status,
    messagePage('Link not valid', err.message, { href: '/console/sign-in', label: 'Go to sign-in' }),
  );
}

/** Registers the routes of people not signed in, and sign-out. */
export function signInRoutes(app: FastifyInstance, ctx: AppContext): void {
  signInFlow(app, ctx);
  twoFactorFlow(app, ctx);
  signOutFlow(app, ctx);
  forgotPasswordFlow(app, ctx);
  setPasswordFlow(app, ctx);
}

/** Said when a form was posted after the session went idle: what it held is kept for this user. */
const EXPIRED_WITH_DRAFT = {
  kind: 'info',
  text: 'Your session expired, so nothing was saved yet. Sign in again: the page opens with what you typed filled in.',
} as const;

/** The sign-in page and its post: a session that is active, or waits for the second factor. */
function signInFlow(app: FastifyInstance, ctx: AppContext): void {
  const db = ctx.database.db;
  app.get<{ Querystring: Query }>('/console/sign-in', { schema: { hide: true } }, async (req, reply) => {
    const next = safeNext(req.query.next);
    const session = await resolveSession(db, ctx.config, readCookie(req, SESSION_COOKIE));
    if (session?.state === 'active') return reply.code(303).redirect(next, 303);
    const flash =
      req.query.signed_out !== undefined
        ? ({ kind: 'info', text: 'You are signed out.' } as const)
        : req.query.expired !== undefined
          ? EXPIRED_WITH_DRAFT
          : req.query.password_set !== undefined
            ? ({ kind: 'success', text: 'Your password is set. You can sign in now.' } as const)
            : undefined;
    return sendHtml(reply, 200, signInPage({ token: formToken(ctx, reply), next, flash }));
  });

  app.post('/console/sign-in', formRoute(SignInForm), async (req, reply) => {
    const sent = sentFields(req);
    const next = safeNext(sent.next);
    const again = (status: number, flash: Flash) => {
      const email = typeof sent.email === 'string' ? sent.email : undefined;
      return sendHtml(reply, status, signInPage({ token: formToken(ctx, reply), next, email, flash }));
    };
    if (!formTokenMatches(req, sent._csrf)) return again(403, expiredForm);
    try {
      const form = postedForm(req, SignInForm);
      const result = await signIn(db, ctx.config, { email: form.email, password: form.password, ip: req.ip });
      const token = await openSession(
        db,
        ctx.config,
        result.user.id,
        result.needsSecondFactor ? 'second_factor' : 'active',
        req.ip,
      );
      writeCookie(reply, SESSION_COOKIE, token, sessionCookie(ctx));
      writeCookie(reply, SIGN_IN_COOKIE, null, {
        secure: secureCookies(ctx),
        path: '/console',
        sameSite: 'Strict',
      });
      const target = result.needsSecondFactor
        ? `/console/sign-in/two-factor?next=${encodeURIComponent(next)}`
        : next;
      return reply.code(303).redirect(target, 303);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      reply.headers(err.headers);
      return again(err.status, errorFlash(err));
    }
  });
}

/** What the first page after signing in with a recovery code says: how many are left, and what to do when few are. */
function recoveryCodeUsed(left: number): Flash {
  const count = `${left} recovery code${left === 1 ? '' : 's'} left`;
  const advice = left > 3 ? '' : ' Make a new set under Settings, Two-factor authentication.';
  return {
    kind: 'info',
    text: `You signed in with a recovery code, which now no longer works. You have ${count}.${advice}`,
  };
}

/** The code step after a correct password, for a user with two-factor authentication. */
function twoFactorFlow(app: FastifyInstance, ctx: AppContext): void {
  const db = ctx.database.db;
  const signInAgain = (next: string) => `/console/sign-in?next=${encodeURIComponent(next)}`;
  app.get<{ Querystring: Query }>(
    '/console/sign-in/two-factor',
    { schema: { hide: true } },
    async (req, reply) => {
      const next = safeNext(req.query.next);
      const session = await resolveSession(db, ctx.config, readCookie(req, SESSION_COOKIE));
      if (!session) return reply.code(303).redirect(signInAgain(next), 303);
      if (session.state === 'active') return reply.code(303).redirect(next, 303);
      const recovery = req.query.recovery !== undefined;
      return sendHtml(reply, 200, secondFactorPage({ token: session.csrfToken, next, recovery }));
    },
  );

  app.post('/console/sign-in/two-factor', formRoute(TwoFactorForm), async (req, reply) => {
    const sent = sentFields(req);
    const next = safeNext(sent.next);
    const session = await resolveSession(db, ctx.config, readCookie(req, SESSION_COOKIE));
    if (!session || session.state !== 'second_factor')
      return reply.code(303).redirect(signInAgain(next), 303);
    if (!csrfMatches(session, sent._csrf))
      throw new AppError('console.csrf', 'this form has expired; go back, reload the page and try again');
    const recovery = sent.recovery === 'yes';
    let left: number | undefined;
    try {
      const form = postedForm(req, TwoFactorForm);
      left = await signInSecondFactor(db, ctx.config, ctx.sealer, session.user, {
        code: form.code,
        recovery,
        ip: req.ip,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      reply.headers(err.headers);
      if (err.code === 'console.locked') {
        await closeSession(db, session.id);
        writeCookie(reply, SESSION_COOKIE, null, sessionCookie(ctx));
        return sendHtml(
          reply,
          err.status,
          signInPage({ token: formToken(ctx, reply), next, flash: errorFlash(err) }),
        );
      }
      return sendHtml(
        reply,
        err.status,
        secondFactorPage({ token: session.csrfToken, next, recovery, flash: errorFlash(err) }),
      );
    }
    await activateSession(db, session.id);
    if (left !== undefined) await setFlash(db, session.id, recoveryCodeUsed(left));
    return reply.code(303).redirect(next, 303);
  });
}

/** Sign-out: closes the session (a request without one only loses its cookie). */
function signOutFlow(app: FastifyInstance, ctx: AppContext): void {
  const db = ctx.database.db;
  app.post('/console/sign-out', formRoute(SignOutForm), async (req, reply) => {
    const session = await resolveSession(db, ctx.config, readCookie(req, SESSION_COOKIE));
    if (session) {
      if (!csrfMatches(session, sentFields(req)._csrf))
        throw new AppError('console.csrf', 'this form has expired; go back, reload the page and try again');
      postedForm(req, SignOutForm);
      await closeSession(db, session.id);
      await record(db, {
        accountId: session.user.customerId,
        actor: { type: 'user', id: session.user.id },
        action: 'sign_out',
        target: `user:${session.user.id}`,
        ip: req.ip,
      });
    }
    writeCookie(reply, SESSION_COOKIE, null, sessionCookie(ctx));
    return reply.code(303).redirect('/console/sign-in?signed_out', 303);
  });
}

const RESET_SENT =
  'If the address belongs to a user, a link to choose a new password is on its way. It works once, within 72 hours.';

/**
 * The "forgot password" page and its post, which mails a reset link when the address belongs to a user and redirects
 * to the same answer for any address (`?sent`), so a reload mails nothing again.
 */
function forgotPasswordFlow(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: Query }>(
    '/console/forgot-password',
    { schema: { hide: true } },
    async (req, reply) =>
      req.query.sent !== undefined
        ? sendHtml(
            reply,
            200,
            messagePage('Check your email', RESET_SENT, {
              href: '/console/sign-in',
              label: 'Back to sign-in',
            }),
          )
        : sendHtml(reply, 200, forgotPasswordPage({ token: formToken(ctx, reply) })),
  );

  app.post('/console/forgot-password', formRoute(ForgotPasswordForm), async (req, reply) => {
    const again = (status: number, flash: Flash) =>
      sendHtml(reply, status, forgotPasswordPage({ token: formToken(ctx, reply), flash }));
    if (!formTokenMatches(req, sentFields(req)._csrf)) return again(403, expiredForm);
    const refused = formRefusal(req);
    if (refused) return again(refused.status, errorFlash(refused));
    const form = postedForm(req, ForgotPasswordForm);
    const mailLater = await requestPasswordReset(ctx, form.email, req.ip);
    // The address is looked up only once the answer has gone, so its timing says nothing about the address.
    reply.raw.once('finish', () => {
      mailLater().catch((err: unknown) => req.log.error({ err }, 'a password reset link could not be sent'));
    });
    return reply.code(303).redirect('/console/forgot-password?sent', 303);
  });
}

/** The set-password page of a one-time link (first password, reset, invitation) and its post. */
function setPasswordFlow(app: FastifyInstance, ctx: AppContext): void {
  const db = ctx.database.db;
  app.get<{ Querystring: Query }>('/console/set-password', { schema: { hide: true } }, async (req, reply) => {
    const token = req.query.token ?? '';
    try {
      const user = await userOfLink(db, token);
      return sendHtml(reply, 200, setPasswordPage({ linkToken: token, email: user.email }));
    } catch (err) {
      return linkNotValid(reply, err);
    }
  });

  app.post('/console/set-password', formRoute(SetPasswordForm), async (req, reply) => {
    const sent = sentFields(req);
    const token = typeof sent.token === 'string' ? sent.token : '';
    let user: User;
    try {
      user = await userOfLink(db, token);
    } catch (err) {
      return linkNotValid(reply, err);
    }
    const again = (status: number, text: string) =>
      sendHtml(
        reply,
        status,
        setPasswordPage({ linkToken: token, email: user.email, flash: { kind: 'error', text } }),
      );
    const refused = formRefusal(req);
    if (refused) return again(refused.status, refused.message);
    const form = postedForm(req, SetPasswordForm);
    if ((form.password ?? '') !== (form.confirm ?? ''))
      return again(400, 'The two passwords are not the same.');
    try {
      await setPasswordWithLink(db, token, form.password ?? '', req.ip);
    } catch (err) {
      if (err instanceof AppError && err.code === 'user.password_weak') return again(400, err.message);
      return linkNotValid(reply, err);
    }
    return reply.code(303).redirect('/console/sign-in?password_set', 303);
  });
}
