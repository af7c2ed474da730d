/**
 * An account's brand: the display name, logo, colour and postal address that its public pages (hosted forms,
 * unsubscribe, preferences, opt-in confirmation, secure messages) and system emails show. Unset parts fall back to
 * the account's username and the default colour; the logo is an image of the account's library.
 */
import { record, type ChangeBy } from '../audit/audit.service.ts';
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/types.ts';
import { AppError } from '../errors/app-error.ts';
import { DEFAULT_BRAND_COLOUR, foregroundOn, normaliseColour, textShadeOf } from '../markup/colour.ts';
import type { Brand } from '../markup/brand.ts';
import { findAccountById } from './accounts.repository.ts';
import { findImage } from './images.repository.ts';
import { imageUrl } from './images.service.ts';
import { findSettings, savePostalAddress, saveBrand } from './settings.repository.ts';

/** The brand as settings show it: what was set, not the fall-backs. */
export interface BrandSettings {
  name: string | null;
  colour: string | null;
  logoImageId: string | null;
  postalAddress: string | null;
}

/** A change of brand; absent fields stay, null (or blank) removes. */
export interface BrandPatch {
  name?: string | null;
  colour?: string | null;
  logoImageId?: string | null;
  postalAddress?: string | null;
}

/** The longest display name kept. */
export const MAX_BRAND_NAME = 100;
/** The longest postal address kept. */
export const MAX_POSTAL = 500;

/** The account's brand with its fall-backs, ready for a page or an email. */
export async function brandOf(
  ctx: AppContext,
  customerId: number,
  db: Queryable = ctx.database.reader,
): Promise<Brand> {
  const [row, account] = await Promise.all([findSettings(db, customerId), findAccountById(db, customerId)]);
  const logo = row?.brand_logo_id ? await findImage(db, customerId, row.brand_logo_id) : undefined;
  const colour = row?.brand_color ?? DEFAULT_BRAND_COLOUR;
  return {
    name: row?.brand_name ?? account?.username ?? '',
    colour,
    onColour: foregroundOn(colour),
    textColour: textShadeOf(colour),
    logo: logo
      ? {
          url: imageUrl(ctx, logo.token, logo.content_type),
          width: Number(logo.width),
          height: Number(logo.height),
        }
      : null,
    postalAddress: row?.postal_address ?? null,
  };
}

/** What the account set of its brand. */
export async function brandSettingsOf(ctx: AppContext, customerId: number): Promise<BrandSettings> {
  const row = await findSettings(ctx.database.db, customerId);
  return {
    name: row?.brand_name ?? null,
    colour: row?.brand_color ?? null,
    logoImageId: row?.brand_logo_id ?? null,
    postalAddress: row?.postal_address ?? null,
  };
}

const blankToNull = (s: string | null | undefined) => (s ?? '').trim() || null;

function invalid(field: string, message: string): AppError {
  return new AppError('request.invalid', `${field}: ${message}`, { details: [{ field, message }] });
}

/** Checks a patch against what is stored and returns the brand to save. */
async function nextBrand(ctx: AppContext, customerId: number, patch: BrandPatch, now: BrandSettings) {
  const name = patch.name === undefined ? now.name : blankToNull(patch.name);
  if (name && name.length > MAX_BRAND_NAME)
    throw invalid('brand_name', `at most ${MAX_BRAND_NAME} characters`);
  let colour = now.colour;
  if (patch.colour !== undefined) {
    const given = blankToNull(patch.colour);
    colour = given === null ? null : (normaliseColour(given) ?? null);
    if (given !== null && colour === null) throw invalid('brand_color', 'a colour as #rrggbb');
  }
  const logo = patch.logoImageId === undefined ? now.logoImageId : blankToNull(patch.logoImageId);
  if (logo && !(await findImage(ctx.database.db, customerId, logo)))
    throw new AppError('image.not_found', `no image ${logo}`);
  return { brand_name: name, brand_color: colour, brand_logo_id: logo };
}

/** Changes the account's brand and returns what is set; recorded in the audit trail as made `by`. */
export async function changeBrand(
  ctx: AppContext,
  customerId: number,
  patch: BrandPatch,
  by: ChangeBy,
): Promise<BrandSettings> {
  const next = await nextBrand(ctx, customerId, patch, await brandSettingsOf(ctx, customerId));
  const postal =
    patch.postalAddress === undefined
      ? undefined
      : (patch.postalAddress ?? '').replace(/\r\n?/g, '\n').trim();
  if (postal && postal.length > MAX_POSTAL)
    throw invalid('postal_address', `at most ${MAX_POSTAL} characters`);
  await ctx.database.db.transaction().execute(async (trx) => {
    const now = Date.now();
    if (postal !== undefined) await savePostalAddress(trx, customerId, postal || null, now);
    if (patch.name !== undefined || patch.colour !== undefined || patch.logoImageId !== undefined)
      await saveBrand(trx, customerId, next, now);
    await record(trx, {
      accountId: customerId,
      actor: by.actor,
      action: 'settings.brand_update',
      target: `account:${customerId}`,
      ip: by.ip,
      detail: { ...next, postal_address: postal === undefined ? 'kept' : postal ? 'set' : 'cleared' },
    });
  });
  return brandSettingsOf(ctx, customerId);
}

export type { Brand };
