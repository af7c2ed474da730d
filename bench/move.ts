/**
 * `move-to-postgres` at scale: an embedded install holding BENCH_MOVE_MESSAGES messages (1,000,000 by default, written
 * by set-based SQL with a 300-byte sealed-content stand-in each) moved into an empty PostgreSQL database
 * (SEALPOST_BENCH_PG_URL, an admin connection; a scratch database is created and dropped). Measured: rows per second
 * of the whole command (migrations, copy, verification of counts and checksums, counters) and of its copy phase alone.
 * Same-run baseline: PostgreSQL copying the same rows inside itself (`insert into <copy> select * from messages`, the
 * copy having the same indexes and foreign key), the ceiling of any copy into that server.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { embedded, fmt, type BenchRow } from './support.ts';
import { moveToPostgres } from '../src/ops/move-to-postgres.ts';

const ADMIN_URL = process.env.SEALPOST_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Runs the benchmark over `n` messages. */
export async function moveBench(n: number): Promise<BenchRow[]> {
  const inst = await embedded();
  const name = `sealpost_bench_move_${randomBytes(4).toString('hex')}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  try {
    const db = inst.ctx.database.db;
    const customerId = (await db.selectFrom('customers').select('id').executeTakeFirstOrThrow()).id;
    const start = Date.now() - n * 10;
    await sql`
      insert into messages (id, customer_id, domain_id, header_message_id, from_addr, source, lane, allow_non_tls, force_secure,
        open_tracking, link_tracking, custom_headers, content, recipient_count, pending_count, created_at, finished_at)
      with recursive seq(i) as (select 1 union all select i + 1 from seq where i < ${n})
      select printf('%012x-0000-7000-8000-%012d', ${start} + i * 10, i), ${customerId}, null, '<' || i || '@bench.example>',
        'desk@bench.example', 'api', 'transactional', 0, 0, 1, 1, '{}', hex(randomblob(150)), 1, 0, ${start} + i * 10,
        ${start} + i * 10 + 500
      from seq`.execute(db);
    const config = inst.ctx.config;
    await inst.ctx.database.close();
    await admin(`create database ${name}`);

    let copyStart = 0;
    let copyEnd = 0;
    const t0 = performance.now();
    const report = await moveToPostgres(config, url.toString(), {
      onProgress: (p) => {
        if (p.phase === 'copy' && !copyStart) copyStart = performance.now();
        if (p.phase === 'verify' && !copyEnd) copyEnd = performance.now();
      },
    });
    const seconds = (performance.now() - t0) / 1000;
    const copySeconds = (copyEnd - copyStart) / 1000;

    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    let baselineSeconds: number;
    try {
      await client.query('create table bench_baseline (like messages including all)');
      await client.query(
        'alter table bench_baseline add foreign key (customer_id) references customers (id)',
      );
      const b0 = performance.now();
      await client.query('insert into bench_baseline select * from messages');
      baselineSeconds = (performance.now() - b0) / 1000;
    } finally {
      await client.end();
    }
    const rate = report.rows / seconds;
    const copyRate = report.rows / copySeconds;
    const baseline = n / baselineSeconds;
    return [
      {
        name: `move-to-postgres: ${fmt(n)} messages (${report.rows} rows in ${report.tables.length} tables), whole command`,
        measured: `${fmt(rate)} rows/s (${fmt(seconds, 1)} s)`,
        baseline: `${fmt(baseline)} rows/s insert … select inside PostgreSQL (${fmt(baselineSeconds, 1)} s)`,
        ratio: rate / baseline,
        target: '1,000,000 messages within 10 minutes',
        met: (seconds * 1_000_000) / n <= 600,
      },
      {
        name: 'move-to-postgres: copy phase alone (batches of 5,000 rows, each committed with its progress)',
        measured: `${fmt(copyRate)} rows/s (${fmt(copySeconds, 1)} s)`,
        baseline: `${fmt(baseline)} rows/s insert … select inside PostgreSQL`,
        ratio: copyRate / baseline,
        target: '—',
        met: true,
      },
    ];
  } finally {
    await inst.close();
    await admin(`drop database if exists ${name} with (force)`);
  }
}
