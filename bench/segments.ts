/**
 * Dynamic list benchmark, in process over the embedded default (SQLite, durable): N subscribers (BENCH_SEGMENT_SIZE,
 * default 1,000,000) seeded by direct SQL onto one list, a quarter of them matching a dynamic list of two conditions.
 *
 * - count and first page of the dynamic list through the services the routes call. Target: each under 2 s.
 * - export of the dynamic list as a bulk job: time, and growth of this process's RSS over the run sampled every 50 ms.
 *   Target: growth under 100 MB (memory does not follow the list).
 * - expansion of a send narrowed by the dynamic list, against the same-run expansion of a plain list holding exactly
 *   the matching subscribers. Target: at most twice the plain list's time (expansion at list speed).
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { createList, requireList } from '../src/marketing/lists/lists.service.ts';
import {
  createDynamicList,
  matchCount,
  filtersOf,
  requireDynamicList,
} from '../src/marketing/segments/segments.service.ts';
import { subscribersOf } from '../src/marketing/subscribers/subscribers.service.ts';
import { startExport, runExport } from '../src/marketing/exports/exports.service.ts';
import { createSend } from '../src/marketing/campaigns/sends.service.ts';
import { expandSlice } from '../src/marketing/campaigns/expand.ts';
import { embedded, fmt, type BenchInstance, type BenchRow } from './support.ts';

const FILTERS = [
  [
    { field: 'first_name', op: 'is', terms: ['kim'] },
    { field: 'email', op: 'contains', terms: ['@audience'] },
  ],
];

async function seed(inst: BenchInstance, n: number) {
  const db = inst.ctx.database.db;
  const customerId = (await db.selectFrom('customers').select('id').executeTakeFirstOrThrow()).id;
  const listKey = async (name: string) =>
    Number((await requireList(db, customerId, (await createList(inst.ctx, customerId, name)).id)).id);
  const all = await listKey('Everyone');
  const kims = await listKey('Kims');
  const at = Date.now() - 60_000;
  await sql`
    insert into subscribers (customer_id, email, email_key, first_name, created_at, updated_at)
    with recursive seq(i) as (select 1 union all select i + 1 from seq where i < ${n})
    select ${customerId}, 'reader' || i || '@audience.example', 'reader' || i || '@audience.example',
      case when i % 4 = 0 then 'Kim' else 'Reader' end, ${at} - ${n} + i, ${at} - ${n} + i from seq`.execute(
    db,
  );
  await sql`insert into subscription_list_members (list_id, subscriber_id, unsubscribed, created_at, updated_at)
    select ${all}, id, 0, ${at}, ${at} from subscribers where customer_id = ${customerId}`.execute(db);
  await sql`insert into subscription_list_members (list_id, subscriber_id, unsubscribed, created_at, updated_at)
    select ${kims}, id, 0, ${at}, ${at} from subscribers where customer_id = ${customerId} and first_name = 'Kim'`.execute(
    db,
  );
  const mailing = await db
    .insertInto('campaign_mailings')
    .values({
      customer_id: customerId,
      subject: 'Bench',
      subject_key: 'bench',
      html_part: '<p>Hi <a href="https://x.example/a">a</a></p>',
      text_part: 'Hi',
      template_type: 'html',
      from_email: null,
      from_name: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { customerId, all, kims, mailing: Number(mailing.id) };
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await fn();
  return [out, (performance.now() - t0) / 1000];
}

async function expansionSeconds(
  inst: BenchInstance,
  customerId: number,
  mailing: number,
  listId: number,
  dynamicListId?: string,
) {
  const send = await createSend(inst.ctx, customerId, {
    mailingId: mailing,
    listId,
    dynamicListId,
    fromEmail: `news@${inst.domain}`,
    fromName: 'Bench',
    senderEmail: `desk@${inst.domain}`,
  });
  const [, s] = await timed(async () => {
    for (;;) {
      await expandSlice(inst.ctx, Number(send.id), { sliceMs: 3_600_000, batchSize: 500 });
      const row = await inst.ctx.database.db
        .selectFrom('campaign_mailing_sends')
        .select('state')
        .where('id', '=', Number(send.id))
        .executeTakeFirstOrThrow();
      if (row.state !== 'expanding') break;
    }
  });
  const count = await inst.ctx.database.db
    .selectFrom('marketing_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('send_id', '=', Number(send.id))
    .executeTakeFirstOrThrow();
  return { seconds: s, deliveries: Number(count.n) };
}

/** Runs the dynamic list benchmark over `n` subscribers. */
export async function segmentsBench(n: number): Promise<BenchRow[]> {
  const inst = await embedded({ marketingSendRate: 1 });
  try {
    const { customerId, all, kims, mailing } = await seed(inst, n);
    const dyn = await createDynamicList(inst.ctx, customerId, { name: 'Kims', filters: FILTERS });
    const filters = filtersOf(await requireDynamicList(inst.ctx.database.db, customerId, dyn.id));
    const [count, countS] = await timed(() => matchCount(inst.ctx, customerId, filters));
    const q = {
      items: 50,
      page: 1,
      order_by: 'created_at' as const,
      order: 'desc' as const,
      dynamic_list_id: dyn.id,
    };
    const [page, pageS] = await timed(() => subscribersOf(inst.ctx, customerId, q));
    const [pagedCount, pagedS] = await timed(() =>
      subscribersOf(inst.ctx, customerId, { ...q, use_pagination: true }),
    );

    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const started = await startExport(
      inst.ctx,
      customerId,
      'dynamic_list_export',
      { dynamic_list_id: dyn.id },
      '/v1/marketing',
    );
    const [, exportS] = await timed(() => runExport(inst.ctx, Number(started.data.id)));
    clearInterval(sampler);
    const growthMb = (peak - base) / 1e6;

    const plain = await expansionSeconds(inst, customerId, mailing, kims);
    const narrowed = await expansionSeconds(inst, customerId, mailing, all, dyn.id);
    const ratio = narrowed.seconds / plain.seconds;
    const size = fmt(n);
    return [
      {
        name: `dynamic list over ${size} subscribers: count (${fmt(count)} match)`,
        measured: `${fmt(countS, 2)} s`,
        baseline: 'target 2 s',
        ratio: countS / 2,
        target: '< 2 s',
        met: countS < 2,
      },
      {
        name: `dynamic list over ${size} subscribers: first page of 50 (${page.data.length} rows), and with total_count (${fmt(pagedCount.total_count ?? 0)})`,
        measured: `${fmt(pageS, 2)} s; ${fmt(pagedS, 2)} s with the count`,
        baseline: 'target 2 s',
        ratio: Math.max(pageS, pagedS) / 2,
        target: '< 2 s each',
        met: pageS < 2 && pagedS < 2,
      },
      {
        name: `dynamic list export over ${size} subscribers (${fmt(count)} rows, bulk job, sealed chunks)`,
        measured: `${fmt(exportS, 1)} s, RSS growth ${fmt(growthMb, 0)} MB`,
        baseline: `RSS before ${fmt(base / 1e6, 0)} MB`,
        ratio: growthMb / 100,
        target: 'RSS growth < 100 MB',
        met: growthMb < 100,
      },
      {
        name: `send narrowed by the dynamic list over ${size} → ${fmt(narrowed.deliveries)} deliveries`,
        measured: `${fmt(narrowed.seconds, 1)} s (${fmt(narrowed.deliveries / narrowed.seconds)} deliveries/s)`,
        baseline: `${fmt(plain.seconds, 1)} s for a plain list of the same ${fmt(plain.deliveries)} (${fmt(plain.deliveries / plain.seconds)}/s)`,
        ratio,
        target: '≤ 2× the plain list',
        met: ratio <= 2 && narrowed.deliveries === plain.deliveries,
      },
    ];
  } finally {
    await inst.close();
  }
}
