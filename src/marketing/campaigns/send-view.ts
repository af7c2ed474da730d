/** A campaign send as the API shows it: its own UUID and those of its mailing and list, its state and counters. */
import type { Queryable } from '../../db/types.ts';
import { uuidsOf } from '../ids.repository.ts';
import { counterView, type CampaignCounterView } from '../counters.ts';
import type { SendRow } from './sends.repository.ts';

/** A send view for the API. */
export interface SendView {
  id: string;
  type: 'campaign_mailing_send';
  attributes: CampaignCounterView & {
    campaign_mailing_id: string;
    subscription_list_id: string | null;
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

/** Sends as shown, with the UUIDs of their mailings and lists (read in one query each). */
export async function sendViews(db: Queryable, rows: SendRow[]): Promise<SendView[]> {
  const [mailings, lists] = await Promise.all([
    uuidsOf(
      db,
      'campaign_mailings',
      rows.map((r) => r.campaign_mailing_id),
    ),
    uuidsOf(
      db,
      'subscription_lists',
      rows.map((r) => r.subscription_list_id),
    ),
  ]);
  return rows.map((s) => sendView(s, mailings, lists));
}

/** One send as shown. */
export async function sendViewOf(db: Queryable, row: SendRow): Promise<SendView> {
  return (await sendViews(db, [row]))[0]!;
}

function sendView(s: SendRow, mailings: Map<number, string>, lists: Map<number, string>): SendView {
  return {
    id: s.uuid,
    type: 'campaign_mailing_send',
    attributes: {
      campaign_mailing_id: mailings.get(Number(s.campaign_mailing_id)) ?? '',
      subscription_list_id:
        s.subscription_list_id === null ? null : (lists.get(Number(s.subscription_list_id)) ?? null),
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
