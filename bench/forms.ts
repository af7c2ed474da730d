/**
 * Forms benchmarks. Submit: public JSON submissions (five fields) at concurrency 50 into the embedded default (SQLite,
 * synchronous=FULL, every 201 durable with its counters and work row), beside a same-run baseline: a bare Fastify server
 * answering the same request with a constant 201. Target: at least 2,000 accepted/s. Export: the CSV of 100,000 stored
 * submissions streamed over HTTP, with the process's peak RSS growth sampled during the export (flat memory: at most
 * 64 MB); the baseline is reading the same rows, paged, without opening or formatting them.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { buildApp } from '../src/app/app.ts';
import { createForm } from '../src/forms/definitions/forms.service.ts';
import { requireList } from '../src/marketing/lists/lists.service.ts';
import { submissionsAfter } from '../src/forms/submissions/submissions.repository.ts';
import { embedded, fmt, load, type BenchRow } from './support.ts';

const CONNECTIONS = 50;
const EXPORT_ROWS = 100_000;
const FORM_JSON = {
  body: [
    { type: 'TextInput', id: 'n', properties: { field_name: 'name', text: 'Name', required: true } },
    {
      type: 'TextInput',
      id: 'e',
      properties: { field_name: 'email', text: 'Email', required: true, input_mask: 'Email' },
    },
    {
      type: 'Select',
      id: 't',
      properties: { field_name: 'topic', text: 'Topic', options: ['Billing', 'Appointments'] },
    },
    { type: 'TextArea', id: 'm', properties: { field_name: 'message', text: 'Message' } },
    { type: 'Checkbox', id: 'c', properties: { field_name: 'consent', text: 'I agree', required: true } },
  ],
};
const DATA = {
  name: 'Ada Lovelace',
  email: 'ada@example.org',
  topic: 'Appointments',
  message: 'Please call me back about my appointment.',
  consent: true,
};

/** Public submissions per second against a constant-answer baseline. */
export async function formsSubmitBench(seconds: number): Promise<BenchRow[]> {
  const baseline = Fastify();
  baseline.post('/v1/forms/api/forms/:id/submissions', async (_req, reply) => reply.code(201).send());
  const baseUrl = await baseline.listen({ host: '127.0.0.1', port: 0 });
  const inst = await embedded({ formsSubmitPerMinute: 0 });
  const app = await buildApp(inst.ctx);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const customerId = (
      await inst.ctx.database.db.selectFrom('customers').select('id').executeTakeFirstOrThrow()
    ).id;
    const { id } = await createForm(
      inst.ctx,
      customerId,
      { title: 'Bench', form_json: FORM_JSON },
      requireList,
    );
    const path = `/v1/forms/api/forms/${id}/submissions`;
    const body = JSON.stringify({ form_data: DATA });
    await load(`${url}${path}`, { connections: CONNECTIONS, seconds: 2, body });
    await load(`${baseUrl}${path}`, { connections: CONNECTIONS, seconds: 2, body });
    const base = await load(`${baseUrl}${path}`, { connections: CONNECTIONS, seconds, body });
    const ours = await load(`${url}${path}`, { connections: CONNECTIONS, seconds, body });
    if (ours.non2xx > 0 || ours.errors > 0)
      throw new Error(`submit benchmark saw ${ours.non2xx} non-2xx and ${ours.errors} errors`);
    const form = await inst.ctx.database.db
      .selectFrom('forms')
      .select('submission_count')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    if (form.submission_count < ours.total)
      throw new Error(`only ${form.submission_count} of ${ours.total} submissions are counted`);
    return [
      {
        name: 'forms submit: public JSON submission, 5 fields, concurrency 50, SQLite durable',
        measured: `${fmt(ours.requestsPerSec)} /s, p50 ${fmt(ours.p50Ms)} ms, p99 ${fmt(ours.p99Ms)} ms`,
        baseline: `${fmt(base.requestsPerSec)} /s, p99 ${fmt(base.p99Ms)} ms (Fastify constant)`,
        ratio: ours.requestsPerSec / base.requestsPerSec,
        target: '≥ 2,000 /s',
        met: ours.requestsPerSec >= 2000,
      },
    ];
  } finally {
    await app.close();
    await baseline.close();
    await inst.close();
  }
}

/** Time and peak memory of exporting `rows` submissions as CSV. */
export async function formsExportBench(rows = EXPORT_ROWS): Promise<BenchRow[]> {
  const inst = await embedded({ formsSubmitPerMinute: 0, sqliteSynchronous: 'NORMAL' });
  const app = await buildApp(inst.ctx);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const { ctx } = inst;
    const customerId = (await ctx.database.db.selectFrom('customers').select('id').executeTakeFirstOrThrow())
      .id;
    const { id: formId } = await createForm(
      ctx,
      customerId,
      { title: 'Export', form_json: FORM_JSON },
      requireList,
    );
    await fill(inst.ctx, formId, customerId, rows);

    const readStart = performance.now();
    let after: { createdAt: number; id: string } | null = null;
    for (;;) {
      const batch = await submissionsAfter(ctx.database.reader, formId, after, 500);
      if (batch.length === 0) break;
      after = { createdAt: batch[batch.length - 1]!.created_at, id: batch[batch.length - 1]!.id };
    }
    const readMs = performance.now() - readStart;

    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const start = performance.now();
    const res = await fetch(`${url}/v1/forms/api/forms/${formId}/submissions/submission-csv`, {
      headers: { authorization: `Bearer ${inst.key}` },
    });
    let lines = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
      for (const b of chunk) if (b === 10) lines++;
    const ms = performance.now() - start;
    clearInterval(sampler);
    if (lines !== rows + 1) throw new Error(`export had ${lines} lines for ${rows} submissions`);
    const growthMb = (peak - rssBefore) / 1_048_576;
    return [
      {
        name: `forms export: CSV of ${fmt(rows)} submissions over HTTP, streamed`,
        measured: `${fmt(ms / 1000, 1)} s (${fmt(rows / (ms / 1000))} rows/s), peak RSS +${fmt(growthMb)} MB`,
        baseline: `${fmt(readMs / 1000, 1)} s (paged read of the same rows, not opened)`,
        ratio: ms / readMs,
        target: 'peak RSS growth ≤ 64 MB',
        met: growthMb <= 64,
      },
    ];
  } finally {
    await app.close();
    await inst.close();
  }
}

/** Stores `rows` sealed submissions directly, 500 per transaction. */
async function fill(
  ctx: Awaited<ReturnType<typeof embedded>>['ctx'],
  formId: string,
  customerId: number,
  rows: number,
): Promise<void> {
  const t0 = Date.now() - rows;
  for (let i = 0; i < rows; i += 500) {
    const values = [];
    for (let j = i; j < Math.min(rows, i + 500); j++) {
      const id = randomUUID();
      const data = JSON.stringify({ form_data: { ...DATA, name: `Respondent ${j}` }, files: [] });
      values.push({
        id,
        form_id: formId,
        customer_id: customerId,
        form_version: 1,
        data: ctx.sealer.seal(data, `form_submission:${id}`),
        idempotency_key: null,
        created_at: t0 + j,
      });
    }
    await ctx.database.db.insertInto('form_submissions').values(values).execute();
  }
}
