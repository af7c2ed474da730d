/** Marketing settings routes under both marketing prefixes: `GET /settings` and `PATCH /settings`. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { changeByKey, principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { MarketingSettings, SettingsBody } from './settings.schemas.ts';
import { changeSettings, settingsOf } from '../../accounts/settings.service.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';

const response = { 200: Type.Object({ data: MarketingSettings }), ...MARKETING_ERRORS };

/** Registers the marketing settings routes. */
export function settingsRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    const path = `${prefix}/settings`;
    const common = marketingSchemaBase(prefix);
    app.get(
      path,
      { schema: { ...common, summary: "The account's marketing settings", response } },
      async (req) => ({
        data: await settingsOf(ctx, principalOf(req, 'marketing').customerId),
      }),
    );
    app.patch(
      path,
      {
        schema: {
          ...common,
          summary: "Change the account's marketing settings",
          body: SettingsBody,
          response,
        },
      },
      async (req) => {
        const p = principalOf(req, 'marketing');
        return { data: await changeSettings(ctx, p.customerId, req.body.settings, changeByKey(req, p)) };
      },
    );
  }
}
