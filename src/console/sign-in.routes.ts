/** Sign-in, sign-out and set-password routes: the console's only pages for people without a session. */
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
} from '../users/sessions.service.ts';
import { signIn, signInSecondFactor } from '../users/sign-in.service.ts';
import { setPasswordWithLink, userOfLink } from '../users/users.service.ts';
import { readCookie, SESSION_COOKIE, SIGN_IN_COOKIE, writeCookie } from './cookies.ts';
import {
  forgotPasswordPage,
  messagePage,
  secondFactorPage,
  setPasswordPage,
  signInPage,
} from './sign-in.view.ts';
import { requestPasswordReset } from '../users/members.service.ts';

type Form = Record<string, string | undefined>;

/** A `next` target: only a relative path inside the console; anything else goes to the overview. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string') return '/console';
  return /^\/console(?:[/?#]|$)/.test(next) && !/[\\\s]/.test(next) && !next.startsWith('//')
    ? next
    : '/console';
}

function secureCookies(ctx: AppContext): boolean {
  return ctx.publicUrl.startsWith('https:');
}

function sendHtml(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

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
function formTokenMatches(req: FastifyRequest, given: string | undefined): boolean {
  const cookie = readCookie(req, SIGN_IN_COOKIE);
  if (!cookie || !given || cookie.length !== given.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(given));
}

/** Registers the routes of people not signed in, and sign-out. */
export function signInRoutes(app: FastifyInstance, ctx: AppContext): void {
  const db = ctx.database.db;
  const cookieOpts = () => ({ secure: secureCookies(ctx), path: '/console', sameSite: 'Lax' as const });

  app.get<{ Querystring: Form }>('/console/sign-in', { schema: { hide: true } }, async (req, reply) => {
    const next = safeNext(req.query.next);
    const session = await resolveSession(db, ctx.config, readCookie(req, SESSION_COOKIE));
    if (session?.state === 'active') return reply.code(303).redirect(next, 303);
    const flash =
      req.query.signed_out !== undefined
        ? ({ kind: 'info', text: 'You are signed out.' } as const)
        : undefined;
    return sendHtml(reply, 200, signInPage({ token: formToken(ctx, reply), next, flash }));
  });

  app.post<{ Body: Form }>('/console/sign-in', { schema: { hide: true } }, async (req, reply) => {
    const form = req.body ?? {};
    const next = safeNext(form.next);
    if (!formTokenMatches(req, form._csrf))
      return sendHtml(
        reply,
        403,
        signInPage({ token: formToken(ctx, reply), next, email: form.email, flash: expiredForm }),
      );
    try {
      const result = await signIn(db, ctx.config, {
        email: form.email ?? '',
        password: form.password ?? '',
        ip: req.ip,
      });
      const token = await openSession(
        db,
        ctx.config,
        result.user.id,
        result.needsSecondFactor ? 'second_factor' : 'active',
        req.ip,
      );
      writeCookie(reply, SESSION_COOKIE, token, cookieOpts());
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
      const flash = { kind: 'error', text: err.message } as const;
      return sendHtml(
        reply,
        err.status,
        signInPage({ token: formToken(ctx, reply), next, email: form.email, flash }),
      );
    }
  });

  app.get<{ Querystring: Form }>(
    '/console/sign-in/two-factor',
    { schema: { hide: true } },
    async (req, reply) => {
      const next = safeNext(req.query.next);
      const session = await resolveSession(db, ctx.config, readCookie(req, SESSION_COOKIE));
      if (!session) return reply.code(303).redirect(`/console/sign-in?next=${encodeURIComponent(next)}`, 303);
      if (session.state === 'active') return reply.code(303).redirect(next, 303);
      return sendHtml(reply, 200, secondFactorPage({ token: session.csrfToken, next }));
    },
  );

  app.post<{ Body: Form }>('/console/sign-in/two-factor', { schema: { hide: true } }, async (req, reply) => {
    const form = req.body ?? {};
    const next = safeNext(form.next);
    const session = await resolveSession(db, ctx.config, readCookie(req, SESSION_COOKIE));
    if (!session || session.state !== 'second_factor')
      return reply.code(303).redirect(`/console/sign-in?next=${encodeURIComponent(next)}`, 303);
    if (!csrfMatches(session, form._csrf))
      throw new AppError('console.csrf', 'this form has expired; go back, reload the page and try again');
    try {
      await signInSecondFactor(db, ctx.config, ctx.sealer, session.user, {
        code: form.code ?? '',
        ip: req.ip,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      reply.headers(err.headers);
      if (err.code === 'console.locked') {
        await closeSession(db, session.id);
        writeCookie(reply, SESSION_COOKIE, null, cookieOpts());
        return sendHtml(
          reply,
          err.status,
          signInPage({ token: formToken(ctx, reply), next, flash: { kind: 'error', text: err.message } }),
        );
      }
      return sendHtml(
        reply,
        err.status,
        secondFactorPage({ token: session.csrfToken, next, flash: { kind: 'error', text: err.message } }),
      );
    }
    await activateSession(db, session.id);
    return reply.code(303).redirect(next, 303);
  });

  app.post<{ Body: Form }>('/console/sign-out', { schema: { hide: true } }, async (req, reply) => {
    const session = await resolveSession(db, ctx.config, readCookie(req, SESSION_COOKIE));
    if (session) {
      if (!csrfMatches(session, req.body?._csrf))
        throw new AppError('console.csrf', 'this form has expired; go back, reload the page and try again');
      await closeSession(db, session.id);
      await record(db, {
        accountId: session.user.customerId,
        actor: { type: 'user', id: session.user.id },
        action: 'sign_out',
        target: `user:${session.user.id}`,
        ip: req.ip,
      });
    }
    writeCookie(reply, SESSION_COOKIE, null, cookieOpts());
    return reply.code(303).redirect('/console/sign-in?signed_out', 303);
  });

  app.get('/console/forgot-password', { schema: { hide: true } }, async (_req, reply) =>
    sendHtml(reply, 200, forgotPasswordPage({ token: formToken(ctx, reply) })),
  );

  app.post<{ Body: Form }>('/console/forgot-password', { schema: { hide: true } }, async (req, reply) => {
    const form = req.body ?? {};
    if (!formTokenMatches(req, form._csrf))
      return sendHtml(reply, 403, forgotPasswordPage({ token: formToken(ctx, reply), flash: expiredForm }));
    await requestPasswordReset(ctx, form.email ?? '', req.ip);
    const text =
      'If the address belongs to a user, a link to choose a new password is on its way. It works once, within 72 hours.';
    return sendHtml(
      reply,
      200,
      messagePage('Check your email', text, { href: '/console/sign-in', label: 'Back to sign-in' }),
    );
  });

  app.get<{ Querystring: Form }>('/console/set-password', { schema: { hide: true } }, async (req, reply) => {
    const token = req.query.token ?? '';
    try {
      const user = await userOfLink(db, token);
      return sendHtml(reply, 200, setPasswordPage({ linkToken: token, email: user.email }));
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return sendHtml(
        reply,
        err.status,
        messagePage('Link not valid', err.message, { href: '/console/sign-in', label: 'Go to sign-in' }),
      );
    }
  });

  app.post<{ Body: Form }>('/console/set-password', { schema: { hide: true } }, async (req, reply) => {
    const form = req.body ?? {};
    const token = form.token ?? '';
    try {
      const user = await userOfLink(db, token);
      if ((form.password ?? '') !== (form.confirm ?? ''))
        return sendHtml(
          reply,
          400,
          setPasswordPage({
            linkToken: token,
            email: user.email,
            flash: { kind: 'error', text: 'The two passwords are not the same.' },
          }),
        );
      try {
        await setPasswordWithLink(db, token, form.password ?? '', req.ip);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'user.password_weak') throw err;
        return sendHtml(
          reply,
          400,
          setPasswordPage({
            linkToken: token,
            email: user.email,
            flash: { kind: 'error', text: err.message },
          }),
        );
      }
      return sendHtml(
        reply,
        200,
        messagePage('Password set', 'Your password is set. You can sign in now.', {
          href: '/console/sign-in',
          label: 'Sign in',
        }),
      );
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return sendHtml(
        reply,
        err.status,
        messagePage('Link not valid', err.message, { href: '/console/sign-in', label: 'Go to sign-in' }),
      );
    }
  });
}

const expiredForm = { kind: 'error', text: 'The form had expired. Please try again.' } as const;
