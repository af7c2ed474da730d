/** A campaign send as the API shows it: its integer id and UUID, its mailing's and list's ids, its state and counters. */
import type { Queryable } from '../../db/types.ts';
import { existingKeys } from '../ids.repository.ts';
import { counterView, type CampaignCounterView } from '../counters.ts';
import type { SendRow } from './sends.repository.ts';

/** A send view for the API. */
export interface SendView {
  id: number;
  uuid: string;
  type: 'campaign_mailing_send';
  attributes: CampaignCounterView & {
    campaign_mailing_id: number;
    subscription_list_id: number | null;
    subscription_list_name: string;
    state: string;
    jid: string;
    send_at: string;
    sent_at: string | null;
    finished_at: string | null;
    audience_count: number;
  };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** Sends as shown; a list deleted since shows as null (one query for the lists that remain). */
export async function sendViews(db: Queryable, rows: SendRow[]): Promise<SendView[]> {
  const lists = await existingKeys(
    db,
    'subscription_lists',
    rows.map((r) => r.subscription_list_id),
  );
  return rows.map((s) => sendView(s, lists));
}

/** One send as shown. */
export async function sendViewOf(db: Queryable, row: SendRow): Promise<SendView> {
  return (await sendViews(db, [row]))[0]!;
}

function sendView(s: SendRow, lists: Set<number>): SendView {
  const list = s.subscription_list_id === null ? null : Number(s.subscription_list_id);
  return {
    id: Number(s.id),
    uuid: s.uuid,
    type: 'campaign_mailing_send',
    attributes: {
      campaign_mailing_id: Number(s.campaign_mailing_id),
      subscription_list_id: list !== null && lists.has(list) ? list : null,
      subscription_list_name: s.subscription_list_name,
      state: s.state,
      jid: s.jid,
      send_at: iso(s.send_at)!,
      sent_at: iso(s.sent_at),
      finished_at: iso(s.finished_at),
      audience_count: Number(s.audience_count),
      ...counterView(s),
    },
  };
}
