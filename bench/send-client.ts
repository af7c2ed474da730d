/**
 * The HTTP load generator of the end-to-end benchmark, run as its own process:
 * `node bin/run-ts.js bench/send-client.ts '{"url":"http://127.0.0.1:8080","key":"…","from":"…","count":5000,"connections":32}'`
 * posts `count` one-recipient messages of about 2 KB to `/v1/email/messages` and prints
 * `{"perSecond": …, "startedAt": <ms>, "endedAt": <ms>, "cpuMs": …, "failures": [...]}` (`cpuMs`: the CPU time the
 * process spent sending).
 */
const opts = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  key: string;
  from: string;
  count: number;
  connections: number;
};

const html = `<html><body>${'<p>Your appointment is confirmed. Please arrive ten minutes early.</p>'.repeat(20)}</body></html>`;
const endpoint = `${opts.url}/v1/email/messages`;
const headers = { authorization: `Bearer ${opts.key}`, 'content-type': 'application/json' };
const body = (n: number) =>
  JSON.stringify({
    data: {
      message: {
        recipients: [`patient${n}@example.org`],
        headers: { subject: `Appointment ${n}`, from: opts.from },
        content: { 'text/plain': 'Your appointment is confirmed.', 'text/html': html },
      },
    },
  });

const failures: string[] = [];
let next = 0;
async function worker(): Promise<void> {
  while (next < opts.count) {
    const n = next++;
    const res = await fetch(endpoint, { method: 'POST', headers, body: body(n) });
    const text = await res.text();
    if (res.status !== 200 && failures.length < 5) failures.push(`${res.status} ${text.slice(0, 200)}`);
  }
}

const startedAt = Date.now();
const cpu = process.cpuUsage();
await Promise.all(Array.from({ length: opts.connections }, worker));
const endedAt = Date.now();
const { user, system } = process.cpuUsage(cpu);
const perSecond = opts.count / ((endedAt - startedAt) / 1000);
process.stdout.write(
  JSON.stringify({ perSecond, startedAt, endedAt, cpuMs: (user + system) / 1000, failures }) + '\n',
);
