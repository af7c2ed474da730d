/** The route table: every feature's routes, in one place. */
import type { Registry } from 'prom-client';
import type { AppContext } from '../context.ts';
import type { TypedApp } from './typed.ts';
import { healthRoutes } from './health.routes.ts';
import { emailRoutes } from '../email/email.routes.ts';
import { capturedRoutes } from '../email/captured.routes.ts';
import { trackingRoutes } from '../tracking/tracking.routes.ts';
import { secureMessageRoutes } from '../web/secure-message.routes.ts';
import { webhookRoutes } from '../webhooks/webhooks.routes.ts';
import { registerForms } from '../forms/forms.routes.ts';
import { marketingRoutes } from '../marketing/marketing.routes.ts';
import { consoleRoutes } from '../console/console.routes.ts';

/** Registers every route of the API. */
export async function registerRoutes(app: TypedApp, ctx: AppContext, registry: Registry): Promise<void> {
  healthRoutes(app, ctx, registry);
  emailRoutes(app, ctx);
  capturedRoutes(app, ctx);
  trackingRoutes(app, ctx);
  secureMessageRoutes(app, ctx);
  webhookRoutes(app, ctx);
  await registerForms(app, ctx);
  marketingRoutes(app, ctx);
  await consoleRoutes(app, ctx);
}
