/**
 * The SMTP load generator of the SMTP benchmark, run as its own process so the server under test keeps its event loop:
 * `node bin/run-ts.js bench/smtp-load.ts '{"port":587,"user":"apikey","pass":"…","from":"…","count":1000,"connections":16}'`
 * prints `{"perSecond": …}`.
 */
import nodemailer from 'nodemailer';

const opts = JSON.parse(process.argv[2] ?? '{}') as {
  port: number;
  user: string;
  pass: string;
  from: string;
  count: number;
  connections: number;
};
const transport = nodemailer.createTransport({
  pool: true,
  maxConnections: opts.connections,
  maxMessages: Infinity,
  host: '127.0.0.1',
  port: opts.port,
  requireTLS: true,
  auth: { user: opts.user, pass: opts.pass },
  tls: { rejectUnauthorized: false },
});
const html = `<html><body>${'<p>Your appointment is confirmed. Please arrive ten minutes early.</p>'.repeat(20)}</body></html>`;
const start = performance.now();
await Promise.all(
  Array.from({ length: opts.count }, (_, i) =>
    transport.sendMail({ from: opts.from, to: `patient${i}@example.org`, subject: 'Appointment', text: 'Confirmed.', html }),
  ),
);
const seconds = (performance.now() - start) / 1000;
transport.close();
process.stdout.write(JSON.stringify({ perSecond: opts.count / seconds }) + '\n');
