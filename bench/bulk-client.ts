/**
 * The load generator of the bulk import benchmark, run as its own process so the server under test keeps its event loop:
 * `node bin/run-ts.js bench/bulk-client.ts '{"url":"http://127.0.0.1:8080","key":"…","total":100000,"batch":1000,"connections":2,"first":0}'`
 * prints `{"perSecond": …, "startedAt": <ms>, "endedAt": <ms>, "failures": [...]}`. Every subscriber is new (emails
 * `bulk<n>@import.example` from `first` on) and carries one custom field; the bodies are built before the clock starts.
 */
const opts = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  key: string;
  total: number;
  batch: number;
  connections: number;
  first: number;
};

const bodies: string[] = [];
for (let start = opts.first; start < opts.first + opts.total; start += opts.batch) {
  const subscribers = [];
  for (let n = start; n < Math.min(opts.first + opts.total, start + opts.batch); n++)
    subscribers.push({
      email: `bulk${n}@import.example`,
      first_name: `First${n}`,
      last_name: 'Imported',
      custom_fields: [{ name: 'Plan', value: n % 2 ? 'gold' : 'silver' }],
    });
  bodies.push(JSON.stringify({ subscribers }));
}

const failures: string[] = [];
const endpoint = `${opts.url}/v1/marketing/subscribers_bulk_create`;
const headers = { authorization: `Bearer ${opts.key}`, 'content-type': 'application/json' };
let next = 0;

async function worker(): Promise<void> {
  while (next < bodies.length) {
    const body = bodies[next++]!;
    const res = await fetch(endpoint, { method: 'POST', headers, body });
    const text = await res.text();
    if (res.status !== 200) failures.push(`${res.status} ${text.slice(0, 200)}`);
  }
}

const startedAt = Date.now();
await Promise.all(Array.from({ length: opts.connections }, worker));
const endedAt = Date.now();
process.stdout.write(
  JSON.stringify({ perSecond: opts.total / ((endedAt - startedAt) / 1000), startedAt, endedAt, failures }) +
    '\n',
);
