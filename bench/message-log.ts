/**
 * The console's message log at scale: 1,000,000 messages (one recipient each, 10,000 distinct recipients) written by
 * set-based SQL, then the log's search by recipient (first page of 50, newest first, with each row's recipients), as
 * the page runs it through the service. Baseline: the same number of look-ups of one message by its primary key.
 */
import { sql } from 'kysely';
import { embedded, fmt, type BenchRow } from './support.ts';
import { searchLog } from '../src/email/message-log.service.ts';

const RECIPIENTS = 10_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs the benchmark over `n` messages. */
export async function messageLogBench(n: number, lookups = 300): Promise<BenchRow[]> {
  const inst = await embedded();
  try {
    const db = inst.ctx.database.db;
    const customerId = (await db.selectFrom('customers').select('id').executeTakeFirstOrThrow()).id;
    const start = Date.now() - n * 10;
    const seeding = performance.now();
    await sql`
      insert into messages (id, customer_id, domain_id, header_message_id, from_addr, source, lane, allow_non_tls, force_secure,
        open_tracking, link_tracking, custom_headers, content, recipient_count, pending_count, created_at, finished_at)
      with recursive seq(i) as (select 1 union all select i + 1 from seq where i < ${n})
      select printf('%012x-0000-7000-8000-%012d', ${start} + i * 10, i), ${customerId}, null, '<' || i || '@bench.example>',
        'desk@bench.example', 'api', 'transactional', 0, 0, 0, 0, '{}', null, 1, 0, ${start} + i * 10, ${start} + i * 10 + 500
      from seq`.execute(db);
    await sql`
      insert into message_recipients (message_id, customer_id, address, name, kind, status, delivery_status, delivered_at, updated_at)
      select id, customer_id, 'patient' || (cast(substr(id, 29) as integer) % ${sql.lit(RECIPIENTS)}) || '@example.net', null, 'to',
        'delivered', 'delivered', created_at + 500, created_at + 500
      from messages where customer_id = ${customerId}`.execute(db);
    await sql`analyze`.execute(db);
    const seedSeconds = (performance.now() - seeding) / 1000;

    const timings: number[] = [];
    let rows = 0;
    for (let k = 0; k < lookups; k++) {
      const recipient = `patient${(k * 7919) % RECIPIENTS}@example.net`;
      const t0 = performance.now();
      const page = await searchLog(inst.ctx, customerId, { recipient });
      timings.push(performance.now() - t0);
      rows += page.messages.length;
    }
    const perPage = Math.min(50, Math.floor(n / RECIPIENTS));
    if (rows !== lookups * perPage)
      throw new Error(`expected pages of ${perPage}, got ${rows} rows in ${lookups} searches`);
    const ids = (
      await db
        .selectFrom('messages')
        .select('id')
        .where('customer_id', '=', customerId)
        .limit(lookups)
        .execute()
    ).map((r) => r.id);
    const base: number[] = [];
    for (const id of ids) {
      const t0 = performance.now();
      await db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
      base.push(performance.now() - t0);
    }
    timings.sort((x, y) => x - y);
    base.sort((x, y) => x - y);
    const p50 = percentile(timings, 50);
    const p99 = percentile(timings, 99);
    const max = timings.at(-1)!;
    return [
      {
        name: `message log: search by recipient over ${fmt(n)} messages (10,000 recipients, first page of 50), SQLite`,
        measured: `p50 ${fmt(p50, 1)} ms, p99 ${fmt(p99, 1)} ms, max ${fmt(max, 1)} ms over ${lookups} searches (seeded in ${fmt(seedSeconds, 1)} s)`,
        baseline: `p50 ${fmt(percentile(base, 50), 2)} ms, p99 ${fmt(percentile(base, 99), 2)} ms (one message by primary key)`,
        ratio: p50 / Math.max(percentile(base, 50), 0.001),
        target: '< 200 ms (p99)',
        met: p99 < 200,
      },
    ];
  } finally {
    await inst.close();
  }
}
