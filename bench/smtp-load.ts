/**
 * The SMTP load generator of the SMTP benchmark, run as its own process so the server under test keeps its event loop:
 * `node bin/run-ts.js bench/smtp-load.ts '{"port":587,"user":"apikey","pass":"…","from":"…","count":1000,"connections":4}'`
 * prints `{"perSecond": …, "startedAt": <ms>, "endedAt": <ms>, "cpuMs": …}` (the sending only, after the sessions are
 * set up; `cpuMs` is the CPU time the process spent on it).
 * Each connection is a lean client (EHLO, STARTTLS unless `"starttls": false`, AUTH PLAIN unless `user` is empty, then
 * MAIL/RCPT/DATA pipelined per message) sending a
 * message composed once, so the generator spends as little CPU per message as a client can.
 */
import net from 'node:net';
import tls from 'node:tls';
import nodemailer from 'nodemailer';

const opts = JSON.parse(process.argv[2] ?? '{}') as {
  port: number;
  user: string;
  pass: string;
  from: string;
  count: number;
  connections: number;
  starttls?: boolean;
};

/** A line-oriented SMTP conversation over a socket that can be upgraded to TLS. */
class Session {
  private buffer = '';
  private waiters: ((reply: string) => void)[] = [];
  private lines: string[] = [];
  // Replies that arrived before anyone asked for them (a server may answer pipelined commands in one write).
  private early: string[] = [];
  constructor(private socket: net.Socket) {
    this.listen();
  }
  private listen(): void {
    this.socket.on('data', (d: Buffer) => {
      this.buffer += d.toString('latin1');
      let i: number;
      while ((i = this.buffer.indexOf('\r\n')) >= 0) {
        const line = this.buffer.slice(0, i);
        this.buffer = this.buffer.slice(i + 2);
        this.lines.push(line);
        if (line[3] === ' ') {
          const reply = this.lines.join('\n');
          this.lines = [];
          const waiter = this.waiters.shift();
          if (waiter) waiter(reply);
          else this.early.push(reply);
        }
      }
    });
  }
  reply(): Promise<string> {
    const early = this.early.shift();
    if (early !== undefined) return Promise.resolve(early);
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  async expect(code: string): Promise<void> {
    const r = await this.reply();
    if (!r.split('\n').pop()!.startsWith(code)) throw new Error(`expected ${code}, got ${r}`);
  }
  send(text: string): void {
    this.socket.write(text);
  }
  async upgrade(): Promise<void> {
    this.socket.removeAllListeners('data');
    this.socket = tls.connect({ socket: this.socket, rejectUnauthorized: false });
    await new Promise((r) => this.socket.once('secureConnect', r));
    this.listen();
  }
}

async function open(): Promise<Session> {
  const s = new Session(net.connect(opts.port, '127.0.0.1'));
  await s.expect('220');
  s.send('EHLO load.example\r\n');
  await s.expect('250');
  if (opts.starttls !== false) {
    s.send('STARTTLS\r\n');
    await s.expect('220');
    await s.upgrade();
    s.send('EHLO load.example\r\n');
    await s.expect('250');
  }
  if (opts.user) {
    s.send(`AUTH PLAIN ${Buffer.from(`\0${opts.user}\0${opts.pass}`).toString('base64')}\r\n`);
    await s.expect('235');
  }
  return s;
}

const html = `<html><body>${'<p>Your appointment is confirmed. Please arrive ten minutes early.</p>'.repeat(20)}</body></html>`;
const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
const raw = (
  await composer.sendMail({
    from: opts.from,
    to: 'patient@example.org',
    subject: 'Appointment',
    text: 'Confirmed.',
    html,
  })
).message as Buffer;
const body = raw.toString('latin1').replace(/\r\n\./g, '\r\n..') + '\r\n.\r\n';
const fromAddress = /<([^>]+)>/.exec(opts.from)?.[1] ?? opts.from;

const sessions = await Promise.all(Array.from({ length: opts.connections }, open));
let next = 0;
const startedAt = Date.now();
const start = performance.now();
const cpu = process.cpuUsage();
await Promise.all(
  sessions.map(async (s) => {
    while (next < opts.count) {
      next++;
      s.send(`MAIL FROM:<${fromAddress}>\r\nRCPT TO:<patient@example.org>\r\nDATA\r\n`);
      await s.expect('250');
      await s.expect('250');
      await s.expect('354');
      s.send(body);
      await s.expect('250');
    }
    s.send('QUIT\r\n');
  }),
);
const endedAt = Date.now();
const seconds = (performance.now() - start) / 1000;
const { user, system } = process.cpuUsage(cpu);
process.stdout.write(
  JSON.stringify({ perSecond: opts.count / seconds, startedAt, endedAt, cpuMs: (user + system) / 1000 }) +
    '\n',
);
process.exit(0);
