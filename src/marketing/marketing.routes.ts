/** The marketing surface: subscription lists and subscribers. Campaigns, drips, tracking links and analytics are not built yet. */
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { listRoutes } from './lists/lists.routes.ts';
import { subscriberRoutes } from './subscribers/subscribers.routes.ts';

/** Registers every marketing route. */
export function marketingRoutes(app: TypedApp, ctx: AppContext): void {
  listRoutes(app, ctx);
  subscriberRoutes(app, ctx);
}
