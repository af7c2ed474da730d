/**
 * The SMTP load generator of the SMTP benchmark, run as its own process so the server under test keeps its event loop:
 * `node bin/run-ts.js bench/smtp-load.ts '{"port":587,"user":"apikey","pass":"…","from":"…","count":1000,"connections":16}'`
 * prints `{"perSecond": …, "startedAt": <ms>, "endedAt": <ms>}` (the sending only, after start-up and the first connection).
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
// The message is composed once and sent raw, so the clients spend their CPU on the SMTP sessions, not on MIME.
const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
const raw = (await composer.sendMail({ from: opts.from, to: 'patient@example.org', subject: 'Appointment', text: 'Confirmed.', html }))
  .message as Buffer;
const fromAddress = /<([^>]+)>/.exec(opts.from)?.[1] ?? opts.from;
await transport.verify();
const startedAt = Date.now();
const start = performance.now();
await Promise.all(
  Array.from({ length: opts.count }, () => transport.sendMail({ envelope: { from: fromAddress, to: ['patient@example.org'] }, raw })),
);
const endedAt = Date.now();
const seconds = (performance.now() - start) / 1000;
transport.close();
process.stdout.write(JSON.stringify({ perSecond: opts.count / seconds, startedAt, endedAt }) + '\n');
