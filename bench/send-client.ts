/**
 * The HTTP load generator of the end-to-end benchmark, run as its own process:
 * `node bin/run-ts.js bench/send-client.ts '{"url":"http://127.0.0.1:8080","key":"…","from":"…","count":5000,"connections":32}'`
 * posts `count` one-recipient messages of about 2 KB to `/v1/email/messages` and prints
 * `{"perSecond": …, "startedAt": <ms>, "endedAt": <ms>, "cpuMs": …, "failures": [...]}` (`cpuMs`: the CPU time the
 * process spent sending). Each connection is a kept-alive socket of node:http, one request at a time: a lean client,
 * as the SMTP clients the delivery is compared with are, so the feeder takes as little of the machine's CPU as it can.
 */
import http from 'node:http';

const opts = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  key: string;
  from: string;
  count: number;
  connections: number;
};

const html = `<html><body>${'<p>Your appointment is confirmed. Please arrive ten minutes early.</p>'.repeat(20)}</body></html>`;
const endpoint = new URL('/v1/email/messages', opts.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections });
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
    const { status, text } = await post(body(n));
    if (status !== 200 && failures.length < 5) failures.push(`${status} ${text.slice(0, 200)}`);
  }
}

/** POSTs `payload` on one of the agent's kept-alive sockets; the status and the body of the answer. */
function post(payload: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      endpoint,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const startedAt = Date.now();
const cpu = process.cpuUsage();
await Promise.all(Array.from({ length: opts.connections }, worker));
const endedAt = Date.now();
const { user, system } = process.cpuUsage(cpu);
agent.destroy();
const perSecond = opts.count / ((endedAt - startedAt) / 1000);
process.stdout.write(
  JSON.stringify({ perSecond, startedAt, endedAt, cpuMs: (user + system) / 1000, failures }) + '\n',
);
