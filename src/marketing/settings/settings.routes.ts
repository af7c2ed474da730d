/** Marketing settings routes under both marketing prefixes: `GET /settings` and `PATCH /settings`. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { ErrorResponse } from '../../email/email.schemas.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { MarketingSettings, SettingsBody } from './settings.schemas.ts';
import { changeSettings, settingsOf } from './settings.service.ts';

const security: { [name: string]: string[] }[] = [{ token: [] }, { bearer: [] }];
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 429: ErrorResponse };
const response = { 200: Type.Object({ data: MarketingSettings }), ...errors };

/** Registers the marketing settings routes. */
export function settingsRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    const path = `${prefix}/settings`;
    const common = { hide: prefix === '/v1/marketing', tags: ['marketing'], security };
    app.get(path, { schema: { ...common, summary: "The account's marketing settings", response } }, async (req) => ({
      data: await settingsOf(ctx, principalOf(req, 'marketing').customerId),
    }));
    app.patch(
      path,
      { schema: { ...common, summary: "Change the account's marketing settings", body: SettingsBody, response } },
      async (req) => ({ data: await changeSettings(ctx, principalOf(req, 'marketing').customerId, req.body.settings) }),
    );
  }
}
