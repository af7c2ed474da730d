/**
 * Campaign delivery: the whole service as a user starts it (`sealpost start`, all roles, default settings but for a
 * rate limit high enough not to refuse the load, the relay transport pointed at a loopback STARTTLS sink in another
 * process) sends a campaign to a list of N subscribers (seeded by direct SQL beforehand, not timed). Timed from the
 * request that starts the send until the sink has received all N messages. Baseline: the lean pipelined SMTP clients
 * (bench/smtp-load.ts, 16 connections) sending N messages into the same sink in the same run. Target: 100,000 in
 * under 120 s (scaled for other sizes).
 */
import { seedAudience, sendProgress, startSend, startService } from './campaign.ts';
import { leanClients, sinkWhere, startSink, until } from './sink.ts';
import { embedded, fmt, type BenchRow } from './support.ts';

const TARGET_S_PER_100K = 120;
const PROGRESS_EVERY_MS = 30_000;

/** Delivers a send to `n` subscribers through the service to the sink, then the lean clients' `n` into the same sink. */
export async function campaignDeliverBench(n: number): Promise<BenchRow[]> {
  const sink = await startSink();
  const inst = await embedded({ sqliteSynchronous: 'NORMAL' });
  try {
    const listId = await seedAudience(inst, n);
    const service = await startService(
      inst,
      {
        SEALPOST_LOG_LEVEL: 'info',
        SEALPOST_RATE_LIMIT_PER_MINUTE: '10000000',
        SEALPOST_SMTP_SUBMISSION_PORT: '0',
        SEALPOST_SMTP_TLS_PORT: '0',
        SEALPOST_SMTP_PORT_25: '0',
        SEALPOST_TRANSPORT: 'relay',
        SEALPOST_RELAY_URL: `smtp://127.0.0.1:${sink.port}`,
        SEALPOST_TLS_VERIFY: 'false',
      },
      'api,worker,smtp',
    );
    let seconds: number;
    let rss: number;
    try {
      const startedAt = Date.now();
      const sendId = await startSend(service, inst, listId);
      const progress = setInterval(() => {
        void sendProgress(inst, sendId).then((p) =>
          process.stdout.write(
            `  campaign-deliver: ${fmt((Date.now() - startedAt) / 1000)} s, send ${p.state}, ${fmt(p.audience_count)} expanded, ${fmt(sink.state().received)} at the sink\n`,
          ),
        );
      }, PROGRESS_EVERY_MS);
      try {
        await until(
          () => sink.state().received >= n,
          Math.max(600_000, n * 100),
          `${n} deliveries at the sink`,
        );
      } finally {
        clearInterval(progress);
      }
      seconds = (sink.state().lastAt - startedAt) / 1000;
      rss = service.peakRssMb();
    } finally {
      await service.stop();
    }
    const atSink = sink.rate();
    await sink.reset();
    const lean = await leanClients(sink.port, n);
    await until(() => sink.state().received >= n, 600_000, 'the lean clients');
    const target = (TARGET_S_PER_100K * n) / 100_000;
    const delivered = n / seconds;
    return [
      {
        name: `campaign deliver: send to ${fmt(n)} subscribers started through the API → ${sinkWhere()} (\`sealpost start\`, relay transport, defaults), until the sink has all`,
        measured: `${fmt(seconds, 1)} s (${fmt(delivered)} delivered/s; ${fmt(atSink)} /s from the first message at the sink to the last), service peak RSS ${fmt(rss)} MB`,
        baseline: `${fmt(lean)} /s (${fmt(n / lean, 1)} s, lean pipelined SMTP clients into the same sink)`,
        ratio: delivered / lean,
        target: `< ${fmt(target, 0)} s`,
        met: seconds < target,
      },
    ];
  } finally {
    await inst.close();
    sink.stop();
  }
}
