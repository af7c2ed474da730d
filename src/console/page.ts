/**
 * The page contract every console page is built on.
 *
 *   consolePage(app, ctx, { path, permission, title, render })   a GET page inside the frame
 *   consoleAction(app, ctx, { path, permission, handle })         a POST that changes something
 *
 * Both resolve the signed-in user first: a request without a live session is sent to the sign-in page (and comes
 * back afterwards); a user whose role lacks `permission` gets a 403 page from the server, whatever the page showed.
 * An action's CSRF token (`csrfField(c.csrfToken)` in every form, or an `x-csrf-token` header) is checked before
 * `handle` runs; a missing or wrong one is refused with 403 and nothing changes.
 *
 * An action declares its form with `body` (a TypeBox object of the urlencoded fields), which types `c.form`. A form
 * that does not match is refused like a service refusal, as an error flash on the form's page, before `handle` runs.
 *
 * `render` returns the page body (`html\`...\``), `{ body, title?, status? }`, `{ redirect }` or `{ download }`.
 * `handle` calls the same service the API calls (passing `c.actor` and `c.ip` for the audit trail) and returns
 * `{ redirect, flash? }` (post/redirect/get) or `{ body, title, status? }` to show a page (a form with its errors).
 * An AppError thrown by a service becomes an error flash on the page it came from (or `back`), so a refused change
 * says why and changes nothing. `audit: { action, target(c) }` on either writes an audit entry for the signed-in user:
 * pages showing protected content and actions changing keys, domains, webhooks or settings declare one.
 */
import type { Static, TObject } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { fromFastifyError } from '../http/error-handler.ts';
import { getAccount, type Account } from '../accounts/accounts.service.ts';
import { record, type AuditActor, type ChangeBy } from '../audit/audit.service.ts';
import { can, type Capability } from '../users/capabilities.ts';
import {
  csrfMatches,
  idleSessionUser,
  popFlash,
  resolveSession,
  setFlash,
  type Flash,
  type Session,
} from '../users/sessions.service.ts';
import type { User } from '../users/users.service.ts';
import { totpRequired } from '../users/totp.service.ts';
import { effectiveHolder, viewedAccountId } from '../users/operator.service.ts';
import { readCookie, SESSION_COOKIE } from './cookies.ts';
import { saveDraft, type DraftFields } from '../users/drafts.service.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { layout, NAV } from './layout.ts';

/** The form fields of a POST (urlencoded) before a schema types them; a repeated field is an array. */
export type FormFields = Record<string, string | string[] | undefined>;

/** Who is asking and in which account: what every page and action receives; `F` is the action's form. */
export interface ConsoleContext<F = FormFields> {
  ctx: AppContext;
  req: FastifyRequest;
  user: User;
  session: Session;
  /** The account being looked at: the user's own, or for an operator the one they chose. */
  account: Account;
  /** True while an operator looks at an account other than their own (read only). */
  viewingOther: boolean;
  csrfToken: string;
  ip: string;
  /** The actor to pass to services for the audit trail. */
  actor: AuditActor;
  /** The actor and the address together: what services that audit their changes take. */
  by: ChangeBy;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  /** The form fields of a POST, as the action's `body` schema describes them. */
  form: F;
  /** True when the user has the capability. */
  can(capability: Capability): boolean;
}

/** What a page's render gives back. */
export type PageResult =
  | SafeHtml
  | { body: SafeHtml; title?: string; status?: number }
  | { redirect: string }
  | { download: { filename: string; contentType: string; body: string | Buffer | NodeJS.ReadableStream } };

/** What an action's handle gives back. */
export type ActionResult =
  { redirect: string; flash?: Flash | string } | { body: SafeHtml; title: string; status?: number };

/** An audit entry a page or action writes for the signed-in user: the action and the thing acted on. */
export interface ConsoleAudit {
  action: string;
  target(c: ConsoleContext): string;
  detail?(c: ConsoleContext): Record<string, unknown>;
}

/** A GET page. `audit`: a page that shows protected content records each view (before the page is sent). */
export interface PageSpec {
  path: string;
  permission: Capability;
  title: string;
  render(c: ConsoleContext): Promise<PageResult>;
  audit?: ConsoleAudit;
  /**
   * The audit action written on each view when the page returns protected content (by `audit` or the service that
   * reads it); required for a `read_protected` page. See `protectedContent` in src/audit/audit.http.ts.
   */
  protectedContent?: string | false;
}

/**
 * A POST action. `back` is where an error flash is shown (the form's page); by default the referring console page.
 * `audit`: an entry written after `handle` succeeds, for a change whose service does not record it itself.
 */
export interface ActionSpec<B extends TObject = TObject> {
  path: string;
  permission: Capability;
  /** The form's fields. */
  body: B;
  handle(c: ConsoleContext<Static<B>>): Promise<ActionResult>;
  back?(c: ConsoleContext): string;
  audit?: ConsoleAudit;
  /** A rule beyond the role (an operator-only action): when false the request gets the 403 page and nothing runs. */
  allow?(c: ConsoleContext): boolean;
}

/** Writes a page's or action's declared audit entry. */
async function writeAudit(c: ConsoleContext, audit: ConsoleAudit | undefined): Promise<void> {
  if (audit) await audited(c, audit.action, audit.target(c), audit.detail?.(c));
}

/** Records a change made in the console in the audit trail: the signed-in actor, the account, the address. */
export async function audited(
  c: ConsoleContext,
  action: string,
  target: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await record(c.ctx.database.db, {
    accountId: c.account.customer_id,
    actor: c.actor,
    action,
    target,
    ip: c.ip,
    detail,
  });
}

/** The two-factor settings page: the one page open to a user who must still set up two-factor sign-in. */
export const TWO_FACTOR_PATH = '/console/settings/two-factor';

/** What a user who must still set up two-factor may reach (besides signing out): the page, and starting and confirming the set-up. */
const SET_UP_PATHS = new Set([TWO_FACTOR_PATH, `${TWO_FACTOR_PATH}/start`, `${TWO_FACTOR_PATH}/enable`]);

/** The sign-in URL that returns to this request afterwards. */
export function signInUrl(req: FastifyRequest): string {
  const next = req.method === 'GET' ? req.url : '/console';
  return `/console/sign-in?next=${encodeURIComponent(next)}`;
}

/**
 * Keeps the fields of a form posted on an idle session for its user, and answers the sign-in address that brings the
 * user back to the form's page with the draft named; undefined when there is nothing to keep.
 */
async function keepPostedForm(
  ctx: AppContext,
  req: FastifyRequest,
  userId: string,
): Promise<string | undefined> {
  const { _csrf: _, ...fields } = sentFields(req);
  // Text fields only: a file upload is not kept.
  const kept = Object.fromEntries(
    Object.entries(fields).filter(
      ([, v]) => typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string')),
    ),
  ) as DraftFields;
  if (Object.keys(kept).length === 0) return undefined;
  const id = await saveDraft(ctx, userId, req.url.split('?', 1)[0]!, kept);
  const back = refererPath(req) ?? '/console';
  const next = `${back}${back.includes('?') ? '&' : '?'}draft=${id}`;
  return `/console/sign-in?expired=1&next=${encodeURIComponent(next)}`;
}

/** Resolves the signed-in user and the account, or answers (redirect to sign-in, 403) and returns undefined. */
export async function guard(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  permission: Capability,
): Promise<ConsoleContext | undefined> {
  const db = ctx.database.db;
  const token = readCookie(req, SESSION_COOKIE);
  // Read before resolveSession removes an idle session's row: whose form this is.
  const idleUser =
    req.method === 'POST' ? await idleSessionUser(db, ctx.config, token, sentFields(req)._csrf) : undefined;
  const session = await resolveSession(db, ctx.config, token);
  if (!session || session.state !== 'active') {
    const draft = idleUser ? await keepPostedForm(ctx, req, idleUser) : undefined;
    await reply.code(303).redirect(draft ?? signInUrl(req), 303);
    return undefined;
  }
  const account = await getAccount(db, viewedAccountId(session));
  const holder = effectiveHolder(session.user, account.customer_id);
  const form = sentFields(req);
  const c: ConsoleContext = {
    ctx,
    req,
    user: session.user,
    session,
    account,
    viewingOther: account.customer_id !== session.user.customerId,
    csrfToken: session.csrfToken,
    ip: req.ip,
    actor: { type: 'user', id: session.user.id },
    by: { actor: { type: 'user', id: session.user.id }, ip: req.ip },
    params: (req.params ?? {}) as Record<string, string>,
    query: (req.query ?? {}) as Record<string, string | undefined>,
    form,
    can: (cap) => can(holder, cap),
  };
  if (
    req.method !== 'GET' &&
    req.method !== 'HEAD' &&
    !csrfMatches(session, form._csrf ?? req.headers['x-csrf-token'])
  )
    throw new AppError(
      'console.csrf',
      'this form has expired or did not come from the console; go back, reload the page and try again',
    );
  if (!c.can(permission))
    throw new AppError('console.forbidden', 'your role does not allow this; ask an owner of the account');
  if (
    !session.user.totpEnabled &&
    !SET_UP_PATHS.has(req.url.split('?', 1)[0]!) &&
    (await totpRequired(db, session.user.customerId))
  ) {
    await reply.code(303).redirect(TWO_FACTOR_PATH, 303);
    return undefined;
  }
  return c;
}

/** Renders the frame around a body for a signed-in request. */
export async function framed(c: ConsoleContext, title: string, body: SafeHtml): Promise<string> {
  const flash = await popFlash(c.ctx.database.db, c.session.id);
  const path = c.req.url.split('?', 1)[0]!;
  return layout(
    {
      title,
      currentPath: path,
      accountName: c.account.username,
      userEmail: c.user.email,
      operator: c.user.operator
        ? { viewingOther: c.viewingOther, ownAccountId: c.user.customerId }
        : undefined,
      csrfToken: c.csrfToken,
      flash,
      nav: NAV.filter((n) => c.can(n.capability)),
      capture: c.ctx.config.transport === 'capture',
      idleSeconds: c.ctx.config.consoleIdleTimeoutSeconds,
    },
    body,
  );
}

/** Registers a GET page under the console's guard and frame. */
export function consolePage(app: FastifyInstance, ctx: AppContext, spec: PageSpec): void {
  const protectedContent = spec.protectedContent ?? spec.audit?.action;
  if (spec.permission === 'read_protected' && protectedContent === undefined)
    throw new Error(`${spec.path} reads protected content: declare the audit action it writes`);
  app.get(spec.path, { schema: { hide: true }, config: { protectedContent } }, async (req, reply) => {
    const c = await guard(ctx, req, reply, spec.permission);
    if (!c) return reply;
    const result = await spec.render(c);
    if (!('redirect' in result)) await writeAudit(c, spec.audit);
    if ('redirect' in result) return reply.code(303).redirect(result.redirect, 303);
    if ('download' in result) {
      const d = result.download;
      return reply
        .header('content-disposition', `attachment; filename="${d.filename.replace(/["\\\r\n]/g, '_')}"`)
        .type(d.contentType)
        .send(d.body);
    }
    const page =
      'body' in result ? result : { body: result as SafeHtml, title: undefined, status: undefined };
    return reply
      .code(page.status ?? 200)
      .type('text/html; charset=utf-8')
      .send(await framed(c, page.title ?? spec.title, page.body));
  });
}

/** A same-origin console path from the Referer header, or undefined. */
function refererPath(req: FastifyRequest): string | undefined {
  const ref = req.headers.referer;
  if (!ref) return undefined;
  try {
    const u = new URL(ref);
    return u.host === req.headers.host && u.pathname.startsWith('/console')
      ? u.pathname + u.search
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Route options of a console POST: its form's schema, whose verdict waits for the guard so that sign-in, CSRF and
 * role are answered first. The handler reads the form with `formOf` (or `postedForm` where there is no guard).
 */
export function formRoute<B extends TObject>(body: B) {
  return { schema: { hide: true, body }, attachValidation: true };
}

/** The fields of a POST as sent, before its schema's verdict is read (for the checks that come first). */
export function sentFields(req: FastifyRequest): FormFields {
  return (req.method === 'POST' && req.body && typeof req.body === 'object' ? req.body : {}) as FormFields;
}

/** The refusal (request.invalid, naming each field) of a POST whose form its schema refused, or undefined. */
export function formRefusal(req: FastifyRequest): AppError | undefined {
  return req.validationError ? fromFastifyError(req.validationError as FastifyError) : undefined;
}

/** The form of a POST as its schema (declared with `formRoute`) types it; a form it refused throws request.invalid. */
export function postedForm<B extends TObject>(req: FastifyRequest, _body: B): Static<B> {
  const refused = formRefusal(req);
  if (refused) throw refused;
  return sentFields(req) as Static<B>;
}

/** The form of a guarded POST as its schema types it; a form the schema refused throws request.invalid. */
export function formOf<B extends TObject>(c: ConsoleContext, body: B): Static<B> {
  return postedForm(c.req, body);
}

/**
 * Checks fields a handler collected itself (the text fields of a multipart upload) against their schema, as a route
 * schema would; a refusal throws request.invalid.
 */
export function checkFields<B extends TObject>(req: FastifyRequest, body: B, fields: FormFields): Static<B> {
  const validate = req.compileValidationSchema(body, 'body');
  if (validate(fields) !== true)
    throw fromFastifyError(
      Object.assign(new Error('form refused'), {
        validation: validate.errors ?? [],
        validationContext: 'body',
      }) as unknown as FastifyError,
    );
  return fields as Static<B>;
}

/** Registers a POST action under the console's guard and CSRF check. */
export function consoleAction<B extends TObject>(
  app: FastifyInstance,
  ctx: AppContext,
  spec: ActionSpec<B>,
): void {
  app.post(spec.path, formRoute(spec.body), async (req, reply) => {
    const c = await guard(ctx, req, reply, spec.permission);
    if (!c) return reply;
    if (spec.allow && !spec.allow(c))
      throw new AppError(
        'console.forbidden',
        'your user may not do this; ask the operator of the installation',
      );
    let result: ActionResult;
    try {
      result = await spec.handle({ ...c, form: formOf(c, spec.body) });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      await setFlash(ctx.database.db, c.session.id, { kind: 'error', text: err.message });
      return reply.code(303).redirect(spec.back?.(c) ?? refererPath(req) ?? '/console', 303);
    }
    await writeAudit(c, spec.audit);
    if ('redirect' in result) {
      if (result.flash)
        await setFlash(
          ctx.database.db,
          c.session.id,
          typeof result.flash === 'string' ? { kind: 'success', text: result.flash } : result.flash,
        );
      return reply.code(303).redirect(result.redirect, 303);
    }
    return reply
      .code(result.status ?? 200)
      .type('text/html; charset=utf-8')
      .send(await framed(c, result.title, result.body));
  });
}

/** A plain "not available yet" body for navigation entries whose page is not part of this installation's version. */
export function notAvailable(label: string): SafeHtml {
  return html`<div class="card">
    <p>
      ${label} is not available in the console yet. Everything it will show can be done today through the API and the
      <code>sealpost</code> command.
    </p>
  </div>`;
}
