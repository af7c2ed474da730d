/**
 * The hosted form page's flow: show the form, take its native post (urlencoded, or multipart when it has file fields)
 * through the same accept function as the JSON door, and answer with the form again (422, errors beside the fields,
 * entered values kept; 403 with a notice when the bot defence refused it), a redirect to the thank-you page, or a
 * not-found page.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import type { Upload } from '../components/component-types.ts';
import { CHECK_FIELD, componentsOf, POW_FIELD, TOKEN_FIELD } from '../definitions/definition.ts';
import { settingsOf } from '../definitions/settings.ts';
import { formByVanity, openForm, type FormRow } from '../definitions/forms.service.ts';
import { formPage, notFoundPage, thanksPage } from './page.html.ts';
import { brandOf } from '../../accounts/brand.service.ts';
import { acceptSubmission } from '../submissions/submissions.service.ts';
import { pageCheck, refusalOf, type BotRefusal } from '../submissions/bot-defence.ts';
import { TEXTS, type PageTexts } from './texts.ts';

/** A page to send, or a redirect. */
export type HostedAnswer = { status: number; html: string } | { redirect: string };

/** A hosted post as read from the request. */
export interface HostedPost {
  fields: Record<string, unknown>;
  uploads: Map<string, Upload>;
}

const NOT_FOUND: HostedAnswer = { status: 404, html: notFoundPage() };

async function openOrNull(ctx: AppContext, id: string) {
  return openForm(ctx, id).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'form.not_found') return null;
    throw err;
  });
}

/** `GET /f/<id-or-vanity>`: the form by id, else the open form whose `vanity_url` is this name. */
export async function showForm(ctx: AppContext, id: string): Promise<HostedAnswer> {
  const form = (await openOrNull(ctx, id)) ?? (await formByVanity(ctx, id));
  if (!form) return NOT_FOUND;
  const token = randomUUID();
  return {
    status: 200,
    html: formPage(form, componentsOf(form.form_json), {
      token,
      settings: settingsOf(form.form_json),
      check: pageCheck(ctx, form, token),
      brand: await brandOf(ctx, form.customer_id),
    }),
  };
}

const NOTICES: Record<BotRefusal, keyof PageTexts> = {
  too_fast: 'tooFast',
  replayed: 'replayed',
  missing: 'expired',
  forged: 'expired',
  expired: 'expired',
  wrong_solution: 'expired',
  key_required: 'expired',
};

/** The page again after the bot defence refused a post: a notice, the answers kept, the token kept only when it was merely early. */
async function refusedPage(
  ctx: AppContext,
  form: FormRow,
  post: HostedPost,
  reason: BotRefusal,
): Promise<HostedAnswer> {
  const settings = settingsOf(form.form_json);
  const early = reason === 'too_fast' && typeof post.fields[TOKEN_FIELD] === 'string';
  const token = early ? (post.fields[TOKEN_FIELD] as string) : randomUUID();
  const check = early ? keptCheck(ctx, form, post, token) : pageCheck(ctx, form, token);
  const notice = TEXTS[settings.language ?? 'en'][NOTICES[reason]] as string;
  const html = formPage(form, componentsOf(form.form_json), {
    values: post.fields,
    token,
    settings,
    check,
    notice,
    brand: await brandOf(ctx, form.customer_id),
  });
  return { status: 403, html };
}

/** `POST /f/<id>`. */
export async function postForm(
  ctx: AppContext,
  id: string,
  post: HostedPost,
  ip: string,
): Promise<HostedAnswer> {
  const form = await openOrNull(ctx, id);
  if (!form) return NOT_FOUND;
  const token =
    typeof post.fields[TOKEN_FIELD] === 'string' && /^[\w-]{1,100}$/.test(post.fields[TOKEN_FIELD])
      ? post.fields[TOKEN_FIELD]
      : undefined;
  try {
    await acceptSubmission(ctx, id, {
      fields: post.fields,
      uploads: post.uploads,
      ip,
      idempotencyKey: token && `page:${token}`,
      bot: { door: 'page', check: text(post.fields[CHECK_FIELD]), solution: text(post.fields[POW_FIELD]) },
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'form.not_found') return NOT_FOUND;
    const refusal = refusalOf(err);
    if (refusal) return refusedPage(ctx, form, post, refusal);
    if (!(err instanceof AppError) || err.code !== 'form.submission_invalid') throw err;
    const errors = Object.fromEntries(err.details.map((d) => [d.field ?? '', d.message]));
    const html = formPage(form, componentsOf(form.form_json), {
      values: post.fields,
      errors,
      token: token ?? randomUUID(),
      settings: settingsOf(form.form_json),
      check: keptCheck(ctx, form, post, token ?? ''),
      brand: await brandOf(ctx, form.customer_id),
    });
    return { status: 422, html };
  }
  return { redirect: `/f/${encodeURIComponent(id)}/thanks` };
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The form's check with the token the post carried (it passed, or was merely early), so the time counts on. */
function keptCheck(ctx: AppContext, form: FormRow, post: HostedPost, nonce: string) {
  const check = pageCheck(ctx, form, nonce);
  const posted = text(post.fields[CHECK_FIELD]);
  return check && posted ? { ...check, check: posted } : check;
}

/** `GET /f/<id>/thanks`. */
export async function showThanks(ctx: AppContext, id: string): Promise<HostedAnswer> {
  const form = await openOrNull(ctx, id);
  if (!form) return NOT_FOUND;
  return {
    status: 200,
    html: thanksPage(form, settingsOf(form.form_json), await brandOf(ctx, form.customer_id)),
  };
}

/** Reads the hosted post: urlencoded fields (parsed by the route's body parser) or multipart fields and files. */
export async function readPost(req: FastifyRequest, maxBytes: number): Promise<HostedPost> {
  if (!req.isMultipart())
    return { fields: (req.body as Record<string, unknown> | undefined) ?? {}, uploads: new Map() };
  const fields: Record<string, unknown> = {};
  const uploads = new Map<string, Upload>();
  for await (const part of req.parts({
    limits: { fields: 500, files: 20, fileSize: maxBytes, fieldSize: 100_000 },
  })) {
    if (part.type === 'file') {
      const bytes = await part.toBuffer();
      if (bytes.length > 0 || part.filename) uploads.set(part.fieldname, { name: part.filename, bytes });
      continue;
    }
    const prev = fields[part.fieldname];
    const value = String(part.value);
    fields[part.fieldname] =
      prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return { fields, uploads };
}
