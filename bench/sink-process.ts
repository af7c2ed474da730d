/**
 * The SMTP sink of the end-to-end benchmark, run as its own process so neither side's event loop slows the other:
 * `node bin/run-ts.js bench/sink-process.ts` listens on a loopback port with STARTTLS (a certificate made at start),
 * accepts every message, and prints one JSON line per second with the count received so far and the times of the first
 * and latest message, with the CPU time the sink has used: `{"port": …}` first, then
 * `{"received": …, "firstAt": <ms>, "lastAt": <ms>, "cpuMs": …}`. A line `reset` on
 * its standard input sets the count and both times back to zero and reports at once, so one sink can time several
 * senders one after another. With `BENCH_SINK_RTT_MS` set, the port it prints is a proxy in front of the server that
 * holds every chunk half that long in each direction, as a relay that far away would.
 */
import { SMTPServer } from 'smtp-server';
import net from 'node:net';
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
const portOf = (s: net.Server) => (s.address() as net.AddressInfo).port;
const oneWayMs = Number(process.env.BENCH_SINK_RTT_MS ?? 0) / 2;

/** Copies `from` to `to`, each chunk `oneWayMs` later (timers of one delay fire in order, so chunks stay in order). */
function delayed(from: net.Socket, to: net.Socket): void {
  from.on('data', (chunk: Buffer) => setTimeout(() => to.write(chunk), oneWayMs));
  from.on('end', () => setTimeout(() => to.end(), oneWayMs));
  from.on('error', () => to.destroy());
}

let port = portOf(server.server);
if (oneWayMs > 0) {
  const proxy = net.createServer({ noDelay: true }, (client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: portOf(server.server), noDelay: true });
    delayed(client, upstream);
    delayed(upstream, client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  port = portOf(proxy);
}
process.stdout.write(JSON.stringify({ port }) + '\n');
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
