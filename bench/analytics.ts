/**
 * Campaign analytics benchmark, in process over the embedded default (SQLite, durable): one send of N deliveries
 * (BENCH_ANALYTICS_DELIVERIES, default 100,000) seeded by direct SQL, 40 % opened over five days and 10 % with clicks
 * on two links. Measured: a send page's analytics (`sendAnalytics`: opens and clicks per hour and per day, totals, links
 * with their clickers), the median of five reads. Baseline: one plain pass over the same send's deliveries (a count of
 * the opened ones). Target: under 1 s.
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { sendAnalytics } from '../src/marketing/analytics/timeline.service.ts';
import { embedded, fmt, type BenchRow } from './support.ts';

const HOUR = 3_600_000;

async function median(fn: () => Promise<unknown>, runs = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push((performance.now() - t0) / 1000);
  }
  return times.sort((x, y) => x - y)[Math.floor(runs / 2)]!;
}

export async function analyticsBench(n: number): Promise<BenchRow[]> {
  const inst = await embedded();
  try {
    const db = inst.ctx.database.db;
    const customerId = (await db.selectFrom('customers').select('id').executeTakeFirstOrThrow()).id;
    const start = Date.now() - 6 * 24 * HOUR;
    const mailing = await db
      .insertInto('campaign_mailings')
      .values({
        customer_id: customerId,
        subject: 'Bench',
        subject_key: 'bench',
        html_part: '<p><a href="https://x.example/a">a</a> <a href="https://x.example/b">b</a></p>',
        text_part: 'a b',
        template_type: 'html',
        from_email: null,
        from_name: null,
        created_at: start,
        updated_at: start,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const send = await db
      .insertInto('campaign_mailing_sends')
      .values({
        customer_id: customerId,
        campaign_mailing_id: mailing.id,
        subscription_list_id: null,
        subscription_list_name: 'Bench',
        state: 'sent',
        jid: 'bench-analytics',
        send_at: start,
        content: '{}',
        frozen_at: null,
        created_at: start,
        sent_at: start,
        finished_at: null,
        updated_at: start,
        sent_count: n,
        delivered_count: n,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const sendId = Number(send.id);
    await db
      .insertInto('campaign_send_links')
      .values([
        { send_id: sendId, html_id: 0, target_url: 'https://x.example/a' },
        { send_id: sendId, html_id: 1, target_url: 'https://x.example/b' },
      ])
      .execute();
    // Opens spread over five days (most in the first hours), for 40 % of the emails.
    await sql`
      insert into marketing_deliveries (customer_id, send_id, campaign_mailing_id, subscriber_id, email, status,
        delivery_status, first_opened_at, open_count, created_at, updated_at)
      with recursive seq(i) as (select 1 union all select i + 1 from seq where i < ${n})
      select ${customerId}, ${sendId}, ${mailing.id}, i, 'r' || i || '@bench.example', 'delivered', 'delivered',
        case when i % 5 < 2 then ${start} + (i * 7919 % 120) * (i % 3 + 1) * 1000 * 60 else null end,
        case when i % 5 < 2 then 1 else 0 end, ${start}, ${start} from seq`.execute(db);
    await sql`
      insert into marketing_link_clicks (delivery_id, send_id, html_id, target_url, clicked, first_clicked_at, created_at)
      select id, send_id, id % 2, case when id % 2 = 0 then 'https://x.example/a' else 'https://x.example/b' end, 1,
        first_opened_at + 60000, first_opened_at + 60000
      from marketing_deliveries where send_id = ${sendId} and first_opened_at is not null and id % 4 = 0`.execute(
      db,
    );
    const reader = inst.ctx.database.reader;
    const baseline = await median(() =>
      reader
        .selectFrom('marketing_deliveries')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('send_id', '=', sendId)
        .where('first_opened_at', 'is not', null)
        .executeTakeFirstOrThrow(),
    );
    let opened = 0;
    const measured = await median(async () => {
      const a = await sendAnalytics(inst.ctx, customerId, String(sendId));
      opened = [...a.hourly!.opens, ...(a.daily?.opens ?? [])].reduce((x, y) => x + y, 0);
    });
    return [
      {
        name: `campaign analytics: a send page's charts, totals and links over ${fmt(n)} deliveries (${fmt(opened)} opened), SQLite durable`,
        measured: `${fmt(measured * 1000)} ms (median of 5)`,
        baseline: `${fmt(baseline * 1000)} ms (one count of the send's opened deliveries)`,
        ratio: measured / baseline,
        target: '< 1 s',
        met: measured < 1,
      },
    ];
  } finally {
    await inst.close();
  }
}
