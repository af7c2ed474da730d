/** The marketing surface: lists, subscribers, mailings, sends, drips, analytics, and the public links of marketing mail. */
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { listRoutes } from './lists/lists.routes.ts';
import { dripRoutes } from './drips/drips.routes.ts';
import { subscriberRoutes } from './subscribers/subscribers.routes.ts';
import { mailingRoutes } from './mailings/mailings.routes.ts';
import { settingsRoutes } from './settings/settings.routes.ts';
import { analyticsRoutes } from './analytics/analytics.routes.ts';
import { sendRoutes } from './campaigns/sends.routes.ts';
import { engagementRoutes } from './campaigns/engagement.routes.ts';
import { segmentRoutes } from './segments/segments.routes.ts';
import { accountRoutes } from './account/account.routes.ts';
import { sendsListRoutes } from './campaigns/sends-list.routes.ts';
import { exportRoutes } from './exports/exports.routes.ts';
import { subscriptionRoutes } from './subscriptions/subscriptions.routes.ts';

/** Registers every marketing route. */
export function marketingRoutes(app: TypedApp, ctx: AppContext): void {
  listRoutes(app, ctx);
  subscriberRoutes(app, ctx);
  dripRoutes(app, ctx);
  mailingRoutes(app, ctx);
  settingsRoutes(app, ctx);
  analyticsRoutes(app, ctx);
  sendRoutes(app, ctx);
  engagementRoutes(app, ctx);
  segmentRoutes(app, ctx);
  accountRoutes(app, ctx);
  sendsListRoutes(app, ctx);
  exportRoutes(app, ctx);
  subscriptionRoutes(app, ctx);
}
