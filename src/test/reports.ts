/**
 * Reports as receiving servers send them, for tests: a delivery status notification (RFC 3464) and a feedback report
 * (ARF, RFC 5965), each a complete `multipart/report` message with its human-readable part, its machine-readable
 * part and the returned headers; a real SMTP client that sends one to a listener without authentication; the listener.
 */
import nodemailer from 'nodemailer';
import { reportHandlers } from '../app/reports.ts';
import { startSmtp, type RunningSmtp } from '../smtp/smtp.server.ts';
import type { TestAccount, TestApp } from './harness.ts';
import { testCertificate } from './smtp-sink.ts';

const CRLF = '\r\n';
const DATE = 'Tue, 24 Nov 2026 10:00:00 +0000';

/** What a DSN says about its one recipient. */
export interface DsnSpec {
  /** The return path the DSN goes to (the envelope sender of the delivery). */
  to: string;
  recipient: string;
  action: 'failed' | 'delayed';
  status: string;
  diagnostic: string;
}

function report(type: string, to: string, from: string, subject: string, parts: string[]): string {
  const boundary = `report-${type}-boundary`;
  return [
    `From: ${from}`,
    `To: <${to}>`,
    `Subject: ${subject}`,
    `Date: ${DATE}`,
    `Message-ID: <${type}.${Math.random().toString(36).slice(2)}@mx.patients.example>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=${type};`,
    `\tboundary="${boundary}"`,
    '',
    'This is a MIME-encapsulated message.',
    '',
    ...parts.map((p) => `--${boundary}${CRLF}${p}`),
    `--${boundary}--`,
    '',
  ].join(CRLF);
}

/** The original message's headers, as a report returns them. */
function returnedHeaders(returnPath: string, recipient: string): string {
  return [
    `Return-Path: <${returnPath}>`,
    'From: Clinic <clinic@clinic.example>',
    `To: <${recipient}>`,
    'Subject: Lab results ready',
    `Date: ${DATE}`,
  ].join(CRLF);
}

/** A delivery status notification for one recipient, as a receiving MTA (Postfix-like) writes it. */
export function dsnMessage(spec: DsnSpec): string {
  const [first, ...rest] = spec.diagnostic.split(' ');
  return report(
    'delivery-status',
    spec.to,
    'Mail Delivery System <MAILER-DAEMON@mx.patients.example>',
    spec.action === 'failed' ? 'Undelivered Mail Returned to Sender' : 'Delayed Mail (still being retried)',
    [
      [
        'Content-Description: Notification',
        'Content-Type: text/plain; charset=us-ascii',
        '',
        `This is the mail system at host mx.patients.example. Your message to <${spec.recipient}> ${
          spec.action === 'failed' ? 'could not be delivered' : 'is delayed'
        }.`,
        '',
      ].join(CRLF),
      [
        'Content-Description: Delivery report',
        'Content-Type: message/delivery-status',
        '',
        'Reporting-MTA: dns; mx.patients.example',
        'X-Postfix-Queue-ID: 4Jq2xT0abcz',
        `Arrival-Date: ${DATE}`,
        '',
        `Final-Recipient: rfc822; ${spec.recipient}`,
        `Original-Recipient: rfc822;${spec.recipient}`,
        `Action: ${spec.action}`,
        `Status: ${spec.status}`,
        'Remote-MTA: dns; store.patients.example',
        // Folded, as long diagnostics are.
        `Diagnostic-Code: smtp; ${first}${CRLF}    ${rest.join(' ')}`,
        ...(spec.action === 'delayed' ? [`Will-Retry-Until: ${DATE}`] : []),
        '',
      ].join(CRLF),
      [
        'Content-Description: Undelivered Message Headers',
        'Content-Type: text/rfc822-headers',
        '',
        returnedHeaders(spec.to, spec.recipient),
        '',
      ].join(CRLF),
    ],
  );
}

/** A feedback report (ARF) of a complaint by `recipient` about the message sent with return path `to`. */
export function arfMessage(spec: { to: string; recipient: string; feedbackType?: string }): string {
  return report('feedback-report', spec.to, 'Feedback Loop <fbl@isp.example>', 'FW: Lab results ready', [
    [
      'Content-Type: text/plain; charset="US-ASCII"',
      'Content-Transfer-Encoding: 7bit',
      '',
      'This is an email abuse report for an email message received from IP 192.0.2.1 on ' + DATE + '.',
      '',
    ].join(CRLF),
    [
      'Content-Type: message/feedback-report',
      '',
      `Feedback-Type: ${spec.feedbackType ?? 'abuse'}`,
      'User-Agent: SomeGenerator/1.0',
      'Version: 1',
      `Original-Mail-From: <${spec.to}>`,
      `Original-Rcpt-To: <${spec.recipient}>`,
      `Arrival-Date: ${DATE}`,
      'Reporting-MTA: dns; mail.isp.example',
      'Source-IP: 192.0.2.1',
      'Authentication-Results: mail.isp.example; spf=pass smtp.mail=clinic.example',
      'Reported-Domain: clinic.example',
      '',
    ].join(CRLF),
    [
      'Content-Type: message/rfc822',
      '',
      returnedHeaders(spec.to, spec.recipient),
      '',
      'Your results.',
      '',
    ].join(CRLF),
  ]);
}

/** Sends `raw` from the null sender to `to` on a loopback SMTP port without authentication; resolves with the reply. */
export async function sendReport(port: number, to: string[], raw: string): Promise<string> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    tls: { rejectUnauthorized: false },
  });
  try {
    const info = await transport.sendMail({ envelope: { from: '', to }, raw });
    return info.response;
  } finally {
    transport.close();
  }
}

/** Starts a port-25 listener on a free loopback port that applies reports as the running service does. */
export function startReportListener(t: TestApp): Promise<RunningSmtp> {
  return startSmtp(
    t.ctx,
    [{ name: 'port25', port: 0, secure: false }],
    testCertificate(),
    reportHandlers(t.ctx),
  );
}

/** The account's suppression entry of `address` as the API shows it, or null when it is not listed. */
export async function suppressionOf(
  t: TestApp,
  acct: TestAccount,
  address: string,
): Promise<Record<string, unknown> | null> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v1/email/suppressions/${address}`,
    headers: acct.auth,
  });
  return res.statusCode === 200 ? res.json() : null;
}
