/** Tracking link and analytics routes under both marketing prefixes: `/tracking_links` and `/analytics/<report>`. */
import { Type, type TSchema } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import {
  DeliveriesTableQuery,
  DeliveriesTableRow,
  LinkSubscriber,
  LinkSubscribersQuery,
  SendsTableQuery,
  SendsTableRow,
  Totals,
  TotalsQuery,
  TrackingLink,
  TrackingLinksQuery,
  UniqueLinkRow,
  UniqueLinksQuery,
} from './analytics.schemas.ts';
import {
  linkSubscribersOf,
  sendsTableOf,
  sendTotalsOf,
  trackingLinksOf,
  uniqueLinksOf,
} from './analytics.service.ts';
import { deliveriesTableOf } from './deliveries-table.service.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';
import { PagedAnswer } from '../paging.ts';

const answer = <T extends TSchema>(data: T) => ({ 200: Type.Object({ data }), ...MARKETING_ERRORS });

/** Registers the tracking link and analytics routes. */
export function analyticsRoutes(app: TypedApp, ctx: AppContext): void {
  const customerOf = (req: Parameters<typeof principalOf>[0]) => principalOf(req, 'marketing').customerId;
  for (const prefix of MARKETING_PREFIXES) {
    const common = marketingSchemaBase(prefix);
    app.get(
      `${prefix}/tracking_links`,
      {
        schema: {
          ...common,
          summary:
            'Every link of every email of a send (or of one email), clicked or not, with its tracking data; paged',
          querystring: TrackingLinksQuery,
          response: { 200: PagedAnswer(TrackingLink), ...MARKETING_ERRORS },
        },
      },
      (req) => trackingLinksOf(ctx, customerOf(req), req.query),
    );
    app.get(
      `${prefix}/analytics/campaign_mailing_sends_table`,
      {
        schema: {
          ...common,
          summary: 'Sends that have started, newest first',
          querystring: SendsTableQuery,
          response: answer(Type.Array(SendsTableRow)),
        },
      },
      async (req) => ({ data: await sendsTableOf(ctx, customerOf(req), req.query) }),
    );
    app.get(
      `${prefix}/analytics/campaign_mailing_deliveries_table`,
      {
        schema: {
          ...common,
          summary: 'One row per email of a send or of a mailing',
          querystring: DeliveriesTableQuery,
          response: answer(Type.Array(DeliveriesTableRow)),
        },
      },
      async (req) => ({ data: await deliveriesTableOf(ctx, customerOf(req), req.query) }),
    );
    app.get(
      `${prefix}/analytics/tracking_links_by_unique_link`,
      {
        schema: {
          ...common,
          summary: 'Clicks of each link of a send',
          querystring: UniqueLinksQuery,
          response: answer(Type.Array(UniqueLinkRow)),
        },
      },
      async (req) => ({ data: await uniqueLinksOf(ctx, customerOf(req), req.query) }),
    );
    app.get(
      `${prefix}/analytics/subscribers_by_tracking_link`,
      {
        schema: {
          ...common,
          summary: 'Subscribers who clicked one link of a send',
          querystring: LinkSubscribersQuery,
          response: answer(Type.Array(LinkSubscriber)),
        },
      },
      async (req) => ({ data: await linkSubscribersOf(ctx, customerOf(req), req.query) }),
    );
    app.get(
      `${prefix}/analytics/campaign_mailing_send_totals`,
      {
        schema: {
          ...common,
          summary: 'Totals of one send, or of every send of the account',
          querystring: TotalsQuery,
          response: answer(Totals),
        },
      },
      async (req) => ({ data: await sendTotalsOf(ctx, customerOf(req), req.query.campaign_mailing_send_id) }),
    );
  }
}
