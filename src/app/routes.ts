/** The route table: every feature's routes, in one place. `docs/routes.md` lists what they add up to. */
import type { Registry } from 'prom-client';
import type { AppContext } from '../context.ts';
import type { TypedApp } from '../http/typed.ts';
import { healthRoutes } from './health.routes.ts';
import { guideRoutes } from './guide.routes.ts';
import { emailRoutes } from '../email/email.routes.ts';
import { scheduleRoutes } from '../email/schedule.routes.ts';
import { capturedRoutes } from '../email/captured.routes.ts';
import { suppressionRoutes } from '../email/suppressions.routes.ts';
import { trackingRoutes } from '../tracking/tracking.routes.ts';
import { secureMessageRoutes } from '../web/secure-message.routes.ts';
import { publicImageRoutes } from '../web/images.routes.ts';
import { webhookRoutes } from '../webhooks/webhooks.routes.ts';
import { formsRoutes } from '../forms/definitions/forms.routes.ts';
import { submissionRoutes } from '../forms/submissions/submissions.routes.ts';
import { hostedRoutes } from '../forms/hosted/hosted.routes.ts';
import { createIpLimiter } from '../forms/submissions/spam.ts';
import { listRoutes } from '../marketing/lists/lists.routes.ts';
import { requireList } from '../marketing/lists/lists.service.ts';
import { dripRoutes } from '../marketing/drips/drips.routes.ts';
import { subscriberRoutes } from '../marketing/subscribers/subscribers.routes.ts';
import { mailingRoutes } from '../marketing/mailings/mailings.routes.ts';
import { settingsRoutes } from '../marketing/settings/settings.routes.ts';
import { imageRoutes } from '../marketing/settings/images.routes.ts';
import { analyticsRoutes } from '../marketing/analytics/analytics.routes.ts';
import { sendRoutes } from '../marketing/campaigns/sends.routes.ts';
import { subscriberPageRoutes } from '../marketing/optin/public.routes.ts';
import { listSettingsRoutes } from '../marketing/optin/optin.routes.ts';
import { consoleRoutes, type ConsoleDeps } from '../console/console.routes.ts';
import { segmentRoutes } from '../marketing/segments/segments.routes.ts';
import { accountRoutes } from '../marketing/account/account.routes.ts';
import { sendsListRoutes } from '../marketing/analytics/sends-list.routes.ts';
import { exportRoutes } from '../marketing/exports/exports.routes.ts';
import { subscriptionRoutes } from '../marketing/subscriptions/subscriptions.routes.ts';
import { mailKinds } from './mail-kinds.ts';

/** Registers every route of the API. */
export async function registerRoutes(
  app: TypedApp,
  ctx: AppContext,
  registry: Registry,
  consoleDeps: ConsoleDeps = {},
): Promise<void> {
  healthRoutes(app, ctx, registry);
  guideRoutes(app);
  emailRoutes(app, ctx);
  scheduleRoutes(app, ctx);
  capturedRoutes(app, ctx);
  suppressionRoutes(app, ctx);
  const kinds = mailKinds(ctx);
  trackingRoutes(app, kinds);
  secureMessageRoutes(app, ctx, kinds);
  publicImageRoutes(app, ctx);
  webhookRoutes(app, ctx);
  await formsSurface(app, ctx);
  marketingSurface(app, ctx);
  await consoleRoutes(app, ctx, consoleDeps);
}

/** Forms: definitions, submissions and the hosted pages, sharing one per-IP submission limiter. */
async function formsSurface(app: TypedApp, ctx: AppContext): Promise<void> {
  const limiter = createIpLimiter(ctx.config.formsSubmitPerMinute);
  formsRoutes(app, ctx, requireList);
  submissionRoutes(app, ctx, limiter);
  await hostedRoutes(app, ctx, limiter);
}

/** Marketing: lists, subscribers, drips, mailings, settings, analytics, sends, and the subscriber pages. */
function marketingSurface(app: TypedApp, ctx: AppContext): void {
  listRoutes(app, ctx);
  listSettingsRoutes(app, ctx);
  subscriberRoutes(app, ctx);
  dripRoutes(app, ctx);
  mailingRoutes(app, ctx);
  settingsRoutes(app, ctx);
  imageRoutes(app, ctx);
  analyticsRoutes(app, ctx);
  sendRoutes(app, ctx);
  subscriberPageRoutes(app, ctx);
  segmentRoutes(app, ctx);
  accountRoutes(app, ctx);
  sendsListRoutes(app, ctx);
  exportRoutes(app, ctx);
  subscriptionRoutes(app, ctx);
}
