/**
 * Runs every benchmark and writes bench/RESULTS.md: `npm run bench`. BENCH_SECONDS sets the seconds per measured run;
 * BENCH_ONLY=accept,deliver runs a subset and only prints (RESULTS.md records full runs).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { acceptBench } from './accept.ts';
import { webhooksBench } from './webhooks.ts';
import { deliverBench } from './deliver.ts';
import { smtpBench } from './smtp.ts';
import { formsExportBench, formsSubmitBench } from './forms.ts';
import { bulkImportBench } from './bulk.ts';
import { csvImportBench } from './csv-import.ts';
import { campaignExpansionBench, transactionalLatencyBench } from './campaign.ts';
import { campaignPollingBench } from './campaign-polling.ts';
import { campaignDeliverBench } from './campaign-deliver.ts';
import { backupBench } from './backup.ts';
import { moveBench } from './move.ts';
import { messageLogBench } from './message-log.ts';
import { segmentsBench } from './segments.ts';
import { endToEndBench } from './e2e.ts';
import { recipientsBench } from './recipients.ts';
import { analyticsBench } from './analytics.ts';
import { startBench } from './start.ts';
import { floodBench } from './flood.ts';
import { memoryBench } from './memory.ts';
import { blocksBench } from './blocks.ts';
import { fmt, type BenchRow } from './support.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const only = process.env.BENCH_ONLY?.split(',');
const suites: Record<string, () => Promise<BenchRow[]>> = {
  accept: () => acceptBench(seconds),
  webhooks: () => webhooksBench(seconds),
  deliver: () => deliverBench(Number(process.env.BENCH_DELIVER_COUNT ?? 2000)),
  recipients: () => recipientsBench(Number(process.env.BENCH_RECIPIENTS ?? 1000), seconds),
  smtp: () => smtpBench(Number(process.env.BENCH_SMTP_COUNT ?? 3000)),
  'forms-submit': () => formsSubmitBench(seconds),
  'forms-export': () => formsExportBench(Number(process.env.BENCH_FORMS_EXPORT_ROWS ?? 100_000)),
  'bulk-import': () => bulkImportBench(Number(process.env.BENCH_BULK_SUBSCRIBERS ?? 100_000)),
  'csv-import': () => csvImportBench(Number(process.env.BENCH_CSV_IMPORT_ROWS ?? 1_000_000)),
  'campaign-expand': () =>
    campaignExpansionBench((process.env.BENCH_CAMPAIGN_SIZES ?? '100000,1000000').split(',').map(Number)),
  'campaign-latency': () => transactionalLatencyBench(seconds),
  'campaign-polling': () => campaignPollingBench(Number(process.env.BENCH_POLLING_SIZE ?? 100_000)),
  'campaign-deliver': () => campaignDeliverBench(Number(process.env.BENCH_CAMPAIGN_DELIVER_SIZE ?? 100_000)),
  backup: () => backupBench(Number(process.env.BENCH_BACKUP_MB ?? 256)),
  move: () => moveBench(Number(process.env.BENCH_MOVE_MESSAGES ?? 1_000_000)),
  'message-log': () => messageLogBench(Number(process.env.BENCH_MESSAGE_LOG_COUNT ?? 1_000_000)),
  segments: () => segmentsBench(Number(process.env.BENCH_SEGMENT_SIZE ?? 1_000_000)),
  e2e: () => endToEndBench(Number(process.env.BENCH_E2E_COUNT ?? 5000)),
  analytics: () => analyticsBench(Number(process.env.BENCH_ANALYTICS_DELIVERIES ?? 100_000)),
  flood: () => floodBench(seconds),
  memory: () =>
    memoryBench(Number(process.env.BENCH_MEMORY_COUNT ?? 24), Number(process.env.BENCH_MEMORY_MB ?? 8)),
  start: () => startBench(Number(process.env.BENCH_START_COUNT ?? 5)),
  blocks: () => blocksBench(Number(process.env.BENCH_BLOCKS_COPIES ?? 100_000)),
};

const rows: BenchRow[] = [];
for (const [name, run] of Object.entries(suites)) {
  if (only && !only.includes(name)) continue;
  process.stdout.write(`running ${name} ...\n`);
  const result = await run();
  for (const r of result)
    process.stdout.write(
      `  ${r.name}: ${r.measured} | baseline ${r.baseline} | ratio ${fmt(r.ratio, 2)} | ${r.met ? 'target met' : 'TARGET MISSED'}\n`,
    );
  rows.push(...result);
}

if (only) {
  process.stdout.write(
    'BENCH_ONLY ran a subset: bench/RESULTS.md is left as it is (it records full runs only)\n',
  );
  process.exit(0);
}

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');
const table = rows
  .map(
    (r) =>
      `| ${r.name} | ${r.measured} | ${r.baseline} | ${fmt(r.ratio, 2)} | ${r.target} | ${r.met ? 'met' : 'missed'} |`,
  )
  .join('\n');
writeFileSync(
  file,
  `# Benchmark results

Measured with \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node.js ${process.version}, ${seconds} s per measured run. The machine is shared and noisy, so every result is given beside a baseline measured in the same run, and the ratio is the number to compare across runs.

| benchmark | measured | same-run baseline | ratio | target | target |
| --- | --- | --- | --- | --- | --- |
${table}
`,
);
process.stdout.write(`wrote ${file}\n`);
