/** The route of a list's double opt-in and preference-page settings, served beside the list routes. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { ListParams, ListSettingsBody, SubscriptionList } from '../lists/lists.schemas.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';
import { patchListOptIn } from './optin.service.ts';

/** Registers `PATCH /subscription_lists/:id/settings`. */
export function listSettingsRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    const base = `${prefix}/subscription_lists`;
    const common = marketingSchemaBase(prefix);
    app.patch(
      `${base}/:id/settings`,
      {
        config: { audit: { action: 'list.settings', target: 'list:{id}' } },
        schema: {
          ...common,
          summary: "Change a list's double opt-in and preference-page settings",
          params: ListParams,
          body: ListSettingsBody,
          response: { 200: Type.Object({ data: SubscriptionList }), ...MARKETING_ERRORS },
        },
      },
      async (req) => ({
        data: await patchListOptIn(ctx, principalOf(req, 'marketing').customerId, req.params.id, req.body),
      }),
    );
  }
}
