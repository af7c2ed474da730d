/** The counters a campaign mailing and each of its sends show (spec 2.11), as a schema, a type and a view of a row. */
import { Type } from '@sinclair/typebox';

/** The counter attributes, for response schemas. */
export const CAMPAIGN_COUNTER_SCHEMA = {
  sent_count: Type.Integer(),
  delivered_count: Type.Integer(),
  viewed_count: Type.Integer(),
  clicked_count: Type.Integer(),
  bounced_count: Type.Integer(),
  unsubscribed_count: Type.Integer(),
};

/** The counter attributes of an answer. */
export interface CampaignCounterView {
  sent_count: number;
  delivered_count: number;
  viewed_count: number;
  clicked_count: number;
  bounced_count: number;
  unsubscribed_count: number;
}

/** The counter attributes of a mailing or send row. */
export function counterView(row: CampaignCounterView): CampaignCounterView {
  return {
    sent_count: Number(row.sent_count),
    delivered_count: Number(row.delivered_count),
    viewed_count: Number(row.viewed_count),
    clicked_count: Number(row.clicked_count),
    bounced_count: Number(row.bounced_count),
    unsubscribed_count: Number(row.unsubscribed_count),
  };
}
