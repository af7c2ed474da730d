/**
 * An account's marketing settings: the postal address printed in the footer of campaign emails, and the switch
 * `suppress_transactional`, which makes the account's transactional
 * sends skip addresses whose subscriber unsubscribed globally. The switch is read on every send, so each process keeps
 * it for a few seconds (a change made elsewhere is seen within that time; one made here is seen at once).
 */
import type { AppContext } from '../context.ts';
import type { Database } from '../db/connect.ts';
import { findSettings, saveSuppressTransactional } from './settings.repository.ts';
import { changeBrand } from './brand.service.ts';
import { record, type ChangeBy } from '../audit/audit.service.ts';

/** How long a process keeps an account's switch before reading it again. */
export const OPT_IN_CACHE_MS = 5_000;

/** The settings as the API shows them. */
export interface SettingsView {
  type: 'marketing_settings';
  attributes: {
    suppress_transactional: boolean;
    postal_address: string | null;
    brand_name: string | null;
    brand_color: string | null;
    brand_logo_image_id: string | null;
    updated_at: string | null;
  };
}

/** A change of settings; absent fields stay. */
export interface SettingsPatch {
  suppress_transactional?: boolean;
  /** Blank (spaces) removes it; like every optional field, null and "" count as absent. */
  postal_address?: string | null;
  /** The brand's display name; blank removes it. */
  brand_name?: string | null;
  /** `#rrggbb` (or `#rgb`); blank removes it. */
  brand_color?: string | null;
  /** The id of an image of the account's library to use as the logo; blank removes it. */
  brand_logo_image_id?: string | null;
}

/** Per database (tests run several in one process), per account: the switch and until when it may be trusted. */
const cache = new WeakMap<Database, Map<number, { on: boolean; until: number }>>();

function cacheOf(database: Database): Map<number, { on: boolean; until: number }> {
  let map = cache.get(database);
  if (!map) cache.set(database, (map = new Map()));
  return map;
}

/** The account's marketing settings. */
export async function settingsOf(ctx: AppContext, customerId: number): Promise<SettingsView> {
  const row = await findSettings(ctx.database.db, customerId);
  return {
    type: 'marketing_settings',
    attributes: {
      suppress_transactional: row?.suppress_transactional === 1,
      postal_address: row?.postal_address ?? null,
      brand_name: row?.brand_name ?? null,
      brand_color: row?.brand_color ?? null,
      brand_logo_image_id: row?.brand_logo_id ?? null,
      updated_at: row ? new Date(Number(row.updated_at)).toISOString() : null,
    },
  };
}

/** Changes the account's marketing settings and returns them; the change is recorded in the audit trail as made `by`. */
export async function changeSettings(
  ctx: AppContext,
  customerId: number,
  patch: SettingsPatch,
  by: ChangeBy,
): Promise<SettingsView> {
  if (patch.suppress_transactional !== undefined) {
    const on = patch.suppress_transactional;
    await ctx.database.db.transaction().execute(async (trx) => {
      await saveSuppressTransactional(trx, customerId, on, Date.now());
      await record(trx, {
        accountId: customerId,
        actor: by.actor,
        action: 'settings.marketing_update',
        target: `account:${customerId}`,
        ip: by.ip,
        detail: { suppress_transactional: on },
      });
    });
    cacheOf(ctx.database).delete(customerId);
  }
  const brand = {
    name: patch.brand_name,
    colour: patch.brand_color,
    logoImageId: patch.brand_logo_image_id,
    postalAddress: patch.postal_address,
  };
  if (Object.values(brand).some((v) => v !== undefined)) await changeBrand(ctx, customerId, brand, by);
  return settingsOf(ctx, customerId);
}

/** The account's postal address, or null when it has none. */
export async function postalAddressOf(ctx: AppContext, customerId: number): Promise<string | null> {
  return (await findSettings(ctx.database.reader, customerId))?.postal_address ?? null;
}

/** Whether the account opted in to suppressing transactional sends, read at most once per OPT_IN_CACHE_MS. */
export async function suppressesTransactional(
  ctx: AppContext,
  customerId: number,
  now = Date.now(),
): Promise<boolean> {
  const map = cacheOf(ctx.database);
  const hit = map.get(customerId);
  if (hit && hit.until > now) return hit.on;
  const row = await findSettings(ctx.database.reader, customerId);
  const on = row?.suppress_transactional === 1;
  map.set(customerId, { on, until: now + OPT_IN_CACHE_MS });
  return on;
}
