/**
 * Prometheus metrics of the mail pipeline. Counters (accepted, delivered, deferred, bounced, suppressed by lane;
 * delivery attempt durations by transport; webhook posts by outcome; form submissions) count what this process did:
 * they live in one process-wide registry that every part of the pipeline increments and every app exposes. Queue depth,
 * the age of the oldest queued row and campaign sends in progress are read from the database at scrape time, so any
 * api node shows them for the whole deployment.
 */
import { Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import type { AppContext } from '../context.ts';
import { queueStats } from '../jobs/jobs.repository.ts';
import type { Transport } from '../delivery/transport.ts';
import type { RecordedOutcome } from '../delivery/model.ts';
import type { MailKindName } from '../delivery/kind.ts';

const pipeline = new Registry();

/** The pipeline counters, incremented where things happen. */
export const pipelineMetrics = {
  accepted: new Counter({
    name: 'sealpost_messages_accepted_total',
    help: 'Messages accepted for delivery',
    labelNames: ['lane'],
    registers: [pipeline],
  }),
  delivered: new Counter({
    name: 'sealpost_messages_delivered_total',
    help: 'Recipients delivered',
    labelNames: ['lane'],
    registers: [pipeline],
  }),
  deferred: new Counter({
    name: 'sealpost_messages_deferred_total',
    help: 'Delivery attempts deferred for a retry',
    labelNames: ['lane'],
    registers: [pipeline],
  }),
  bounced: new Counter({
    name: 'sealpost_messages_bounced_total',
    help: 'Recipients failed for good',
    labelNames: ['lane'],
    registers: [pipeline],
  }),
  suppressed: new Counter({
    name: 'sealpost_messages_suppressed_total',
    help: 'Recipients not attempted because suppressed',
    labelNames: ['lane'],
    registers: [pipeline],
  }),
  attemptSeconds: new Histogram({
    name: 'sealpost_delivery_attempt_duration_seconds',
    help: 'Duration of one delivery attempt',
    labelNames: ['transport'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [pipeline],
  }),
  webhookPosts: new Counter({
    name: 'sealpost_webhook_posts_total',
    help: 'Webhook POSTs by outcome',
    labelNames: ['outcome'],
    registers: [pipeline],
  }),
  formSubmissions: new Counter({
    name: 'sealpost_form_submissions_total',
    help: 'Form submissions accepted',
    registers: [pipeline],
  }),
};

/** The label values every series starts with, so each exists (at zero) from the start, before its first event. */
const LANES: readonly MailKindName[] = ['transactional', 'marketing'];
const TRANSPORTS = ['capture', 'relay', 'mx'] as const;
const WEBHOOK_OUTCOMES = ['success', 'http_error', 'network_error', 'refused'] as const;

function startAtZero(): void {
  const { accepted, delivered, deferred, bounced, suppressed } = pipelineMetrics;
  for (const lane of LANES)
    for (const counter of [accepted, delivered, deferred, bounced, suppressed]) counter.inc({ lane }, 0);
  for (const transport of TRANSPORTS) pipelineMetrics.attemptSeconds.zero({ transport });
  for (const outcome of WEBHOOK_OUTCOMES) pipelineMetrics.webhookPosts.inc({ outcome }, 0);
  pipelineMetrics.formSubmissions.inc(0);
}
startAtZero();

/** Counts one recorded delivery outcome on the lane of its kind (the `lane` label is the kind's name). */
export function countDeliveryOutcome(lane: MailKindName, status: RecordedOutcome['status']): void {
  if (status === 'delivered') pipelineMetrics.delivered.inc({ lane });
  else if (status === 'deferred') pipelineMetrics.deferred.inc({ lane });
  else pipelineMetrics.bounced.inc({ lane });
}

/** The transport, with each attempt's duration observed in the pipeline metrics. */
export function timedTransport(transport: Transport): Transport {
  const histogram = pipelineMetrics.attemptSeconds.labels({ transport: transport.name });
  return {
    ...transport,
    async send(req) {
      const end = histogram.startTimer();
      try {
        return await transport.send(req);
      } finally {
        end();
      }
    },
  };
}

/** Adds the pipeline counters and the database-read gauges to an app's registry. */
export function registerPipelineMetrics(
  registry: Registry,
  ctx: AppContext,
  sendsInProgress: () => Promise<number>,
  queues: readonly string[] = [],
): void {
  for (const metric of pipeline.getMetricsAsArray()) registry.registerMetric(metric as unknown as Metric);
  let stats: Promise<{ queue: string; depth: number; oldest: number | null }[]> | undefined;
  // Both queue gauges are collected in one scrape; they share one query, forgotten once the scrape has it.
  const readStats = () =>
    (stats ??= queueStats(ctx.database.reader).finally(() => setImmediate(() => (stats = undefined))));
  new Gauge({
    name: 'sealpost_queue_depth',
    help: 'Work rows queued or running, per queue',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset();
      // Every queue has a series from the start, so an alert on it has data before the first row.
      for (const queue of queues) this.set({ queue }, 0);
      for (const s of await readStats()) this.set({ queue: s.queue }, s.depth);
    },
  });
  new Gauge({
    name: 'sealpost_queue_oldest_age_seconds',
    help: 'Age of the oldest queued or running work row, per queue (0 when it is not yet due)',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset();
      const now = Date.now();
      for (const queue of queues) this.set({ queue }, 0);
      for (const s of await readStats())
        this.set({ queue: s.queue }, s.oldest === null ? 0 : Math.max(0, (now - s.oldest) / 1000));
    },
  });
  new Gauge({
    name: 'sealpost_campaign_sends_in_progress',
    help: 'Campaign sends expanding or sending',
    registers: [registry],
    async collect() {
      this.set(await sendsInProgress());
    },
  });
}
