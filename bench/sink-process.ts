/**
 * The SMTP sink of the end-to-end benchmark, run as its own process so neither side's event loop slows the other:
 * `node bin/run-ts.js bench/sink-process.ts` listens on a loopback port with STARTTLS (a certificate made at start),
 * accepts every message, and prints one JSON line per second with the count received so far and the times of the first
 * and latest message, with the CPU time the sink has used: `{"port": …}` first, then
 * `{"received": …, "firstAt": <ms>, "lastAt": <ms>, "cpuMs": …}`. A line `reset` on
 * its standard input sets the count and both times back to zero and reports at once, so one sink can time several
 * senders one after another.
 */
import { SMTPServer } from 'smtp-server';
import { createInterface } from 'node:readline';
import selfsigned from 'selfsigned';

const pems = selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
  keySize: 2048,
  days: 2,
  algorithm: 'sha256',
});
let received = 0;
let firstAt = 0;
let lastAt = 0;
const server = new SMTPServer({
  key: pems.private,
  cert: pems.cert,
  authOptional: true,
  disableReverseLookup: true,
  logger: false,
  size: 50_000_000,
  maxClients: 1000,
  onData(stream, _session, callback) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      received++;
      lastAt = Date.now();
      firstAt ||= lastAt;
      callback();
    });
  },
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
const address = server.server.address();
process.stdout.write(
  JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }) + '\n',
);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const report = () =>
  process.stdout.write(JSON.stringify({ received, firstAt, lastAt, cpuMs: cpuMs() }) + '\n');
setInterval(report, 200);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'reset') return;
  received = firstAt = lastAt = 0;
  report();
});
process.on('SIGTERM', () => process.exit(0));
