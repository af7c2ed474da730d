/**
 * Campaign delivery: the whole service as a user starts it (`sealpost start`, all roles, default settings but for a
 * rate limit high enough not to refuse the load, the relay transport pointed at a loopback STARTTLS sink in another
 * process) sends a campaign to a list of N subscribers (seeded by direct SQL beforehand, not timed). Timed from the
 * request that starts the send until the sink has received all N messages. Baseline: the lean pipelined SMTP clients
 * (bench/smtp-load.ts, 16 connections) sending N messages into the same sink in the same run. Target: 100,000 in
 * under 120 s (scaled for other sizes).
 *
 * The service, the sink and the lean clients share the machine's cores, so the benchmark also records the CPU time
 * the service (all its threads) and the sink spent per copy, what one RSA-2048 signature (each copy's DKIM signature)
 * costs on the machine in the same run, and the most copies per second the cores could carry at that cost.
 */
import { availableParallelism } from 'node:os';
import { seedAudience, sendProgress, startSend, startService } from './campaign.ts';
import { leanClientsMeasured, sinkWhere, startSink, until } from './sink.ts';
import { embedded, fmt, rsaSignatureCpuMs, type BenchRow } from './support.ts';

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
    let cpu: { service: number; sink: number };
    try {
      const serviceCpu = service.cpuMs();
      const sinkCpu = sink.state().cpuMs;
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
      cpu = { service: (service.cpuMs() - serviceCpu) / n, sink: (sink.state().cpuMs - sinkCpu) / n };
    } finally {
      await service.stop();
    }
    const atSink = sink.rate();
    await sink.reset();
    const leanSinkCpu = sink.state().cpuMs;
    const leanRun = await leanClientsMeasured(sink.port, n);
    await until(() => sink.state().received >= n, 600_000, 'the lean clients');
    const lean = leanRun.perSecond;
    const leanCpu = (leanRun.cpuMs + sink.state().cpuMs - leanSinkCpu) / n;
    const rsa = rsaSignatureCpuMs();
    const target = (TARGET_S_PER_100K * n) / 100_000;
    const delivered = n / seconds;
    const perCopy = cpu.service + cpu.sink;
    const cores = availableParallelism();
    const ceiling = (cores * 1000) / perCopy;
    return [
      {
        name: `campaign deliver: send to ${fmt(n)} subscribers started through the API → ${sinkWhere()} (\`sealpost start\`, relay transport, defaults), until the sink has all`,
        measured: `${fmt(seconds, 1)} s (${fmt(delivered)} delivered/s; ${fmt(atSink)} /s from the first message at the sink to the last), service peak RSS ${fmt(rss)} MB`,
        baseline: `${fmt(lean)} /s (${fmt(n / lean, 1)} s, lean pipelined SMTP clients into the same sink)`,
        ratio: delivered / lean,
        target: `< ${fmt(target, 0)} s`,
        met: seconds < target,
      },
      {
        name: 'campaign deliver: CPU time per copy delivered: service (all threads) + sink',
        measured: `${fmt(cpu.service, 2)} + ${fmt(cpu.sink, 2)} = ${fmt(perCopy, 2)} ms`,
        baseline: `${fmt(leanCpu, 2)} ms (lean clients + sink)`,
        ratio: perCopy / leanCpu,
        target: 'recorded',
        met: true,
      },
      {
        name: "campaign deliver: one RSA-2048 signature (each copy's DKIM signature) on this machine in the same run, against the service's CPU time per copy",
        measured: `${fmt(rsa, 2)} ms`,
        baseline: `${fmt(cpu.service, 2)} ms`,
        ratio: rsa / cpu.service,
        target: 'recorded',
        met: true,
      },
      {
        name: `campaign deliver: the most copies per second ${cores} cores carry at that CPU time per copy, against the target's rate`,
        measured: `${fmt(ceiling)} /s`,
        baseline: `${fmt(n / target)} /s (${fmt(n)} in ${fmt(target, 0)} s)`,
        ratio: ceiling / (n / target),
        target: 'recorded (below 1: the target needs more CPU than the machine has)',
        met: true,
      },
    ];
  } finally {
    await inst.close();
    sink.stop();
  }
}
