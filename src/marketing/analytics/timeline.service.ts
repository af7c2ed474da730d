/**
 * A send's analytics as the console shows them: first opens and first clicks per hour for the first two days after the
 * send started, then per day; its delivered, bounced and unsubscribed totals; and each link with its clicks and the
 * number of people who clicked it. Everything is counted by the database from deliveries and link clicks.
 */
import { openCampaignLink } from '../deliveries/link-targets.ts';
import type { AppContext } from '../../context.ts';
import { requireSend, type SendRow } from '../campaigns/sends.service.ts';
import { pageOfSendLinks } from './analytics.repository.ts';
import { clickersPerLink, hourlyFirsts } from './timeline.repository.ts';

const HOUR = 3_600_000;
/** Hours shown one by one; after them, days. */
export const HOURLY_SPAN = 48;
/** At most this many days after the hourly span. */
const MAX_DAYS = 366;
/** At most this many links in the per-link table. */
const MAX_LINKS = 500;

/** Points in time (ms, the start of each bucket) with opens and clicks counted in each. */
export interface Series {
  x: number[];
  opens: number[];
  clicks: number[];
}

/** A link of a send with its clicks (every click) and clickers (emails with at least one click on it). */
export interface LinkStats {
  html_id: number;
  target_url: string;
  clicks: number;
  clickers: number;
}

/** What the send page shows below its live figures. */
export interface SendAnalytics {
  send: SendRow;
  /** Null until the send has started. */
  hourly: Series | null;
  /** Null until the first two days have passed. */
  daily: Series | null;
  totals: {
    audience: number;
    sent: number;
    delivered: number;
    bounced: number;
    opened: number;
    clicked: number;
    unsubscribed: number;
    global_unsubscribed: number;
  };
  links: LinkStats[];
}

/** The analytics of a send of the account; `now` bounds the time axis. */
export async function sendAnalytics(
  ctx: AppContext,
  customerId: number,
  rawSendId: string,
  now = Date.now(),
): Promise<SendAnalytics> {
  const db = ctx.database.reader;
  const send = await requireSend(db, customerId, rawSendId);
  const totals = {
    audience: Number(send.audience_count),
    sent: Number(send.sent_count),
    delivered: Number(send.delivered_count),
    bounced: Number(send.bounced_count),
    opened: Number(send.viewed_count),
    clicked: Number(send.clicked_count),
    unsubscribed: Number(send.unsubscribed_count),
    global_unsubscribed: Number(send.global_unsubscribed_count),
  };
  const [linkRows, clickers] = await Promise.all([
    pageOfSendLinks(
      db,
      send.id,
      {
        orderBy: 'html_id',
        direction: 'asc',
        limit: MAX_LINKS,
        offset: 0,
      },
      new Map(),
    ),
    clickersPerLink(db, send.id),
  ]);
  const links = linkRows.map((l) => ({
    html_id: Number(l.html_id),
    target_url: openCampaignLink(ctx.sealer, { sendId: send.id }, Number(l.html_id), l.target_url),
    clicks: Number(l.clicked),
    clickers: clickers.get(Number(l.html_id)) ?? 0,
  }));
  if (send.sent_at === null) return { send, hourly: null, daily: null, totals, links };
  const start = Number(send.sent_at);
  const [opens, clicks] = await Promise.all([
    hourlyFirsts(db, send.id, start, 'open'),
    hourlyFirsts(db, send.id, start, 'click'),
  ]);
  const elapsed = Math.max(0, Math.floor((now - start) / HOUR));
  return { send, ...buckets(start, elapsed, opens, clicks), totals, links };
}

/**
 * Folds per-hour counts into the hourly series (hours 0 to 47, up to the current one) and the daily series (whole days
 * after that, up to today), so both axes run to now even where nothing happened.
 */
export function buckets(
  start: number,
  elapsedHours: number,
  opens: { hour: number; n: number }[],
  clicks: { hour: number; n: number }[],
): { hourly: Series; daily: Series | null } {
  const lastHour = Math.max(elapsedHours, ...opens.map((o) => o.hour), ...clicks.map((c) => c.hour));
  const hours = Math.min(HOURLY_SPAN, lastHour + 1);
  const hourly: Series = {
    x: Array.from({ length: hours }, (_, i) => start + i * HOUR),
    opens: new Array<number>(hours).fill(0),
    clicks: new Array<number>(hours).fill(0),
  };
  const days = lastHour < HOURLY_SPAN ? 0 : Math.min(MAX_DAYS, Math.floor((lastHour - HOURLY_SPAN) / 24) + 1);
  const daily: Series | null =
    days === 0
      ? null
      : {
          x: Array.from({ length: days }, (_, i) => start + (HOURLY_SPAN + i * 24) * HOUR),
          opens: new Array<number>(days).fill(0),
          clicks: new Array<number>(days).fill(0),
        };
  const add = (rows: { hour: number; n: number }[], key: 'opens' | 'clicks') => {
    for (const r of rows) {
      if (r.hour < HOURLY_SPAN) hourly[key][r.hour]! += r.n;
      else if (daily) {
        const day = Math.min(days - 1, Math.floor((r.hour - HOURLY_SPAN) / 24));
        daily[key][day]! += r.n;
      }
    }
  };
  add(opens, 'opens');
  add(clicks, 'clicks');
  return { hourly, daily };
}
