/**
 * Captured mail at `/console/captured` (the capture transport keeps every message instead of sending it): the list,
 * and one message with its HTML in a sandboxed frame under its own policy (no script, nothing loaded from elsewhere),
 * the text, the headers, the raw source and the attachments. Message content is protected: opening a message needs
 * the protected-content permission and is recorded in the audit trail (`captured.content_read`).
 */
import type { FastifyInstance } from 'fastify';
import type { ParsedMail } from 'mailparser';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { record } from '../audit/audit.service.ts';
import { capturedById, capturedOfAccount, type CapturedMessage } from '../email/captured.service.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { consolePage, guard, type ConsoleContext } from './page.ts';
import { when } from './format.ts';

/** The policy of the frame's document: inline styles and data: or cid: images only; no script, no remote loads. */
export const MAIL_FRAME_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data: cid:; font-src data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

const CONTENT_READ = 'captured.content_read';

/** Records a read of a captured message's content: the page, its HTML or an attachment (`part`). */
async function auditRead(c: ConsoleContext, m: CapturedMessage, part: string): Promise<void> {
  await record(c.ctx.database.db, {
    accountId: c.account.customer_id,
    actor: c.actor,
    action: CONTENT_READ,
    target: `message:${m.sourceTrackingId}`,
    ip: c.ip,
    detail: { captured_id: m.id, part },
  });
}

async function openMessage(c: ConsoleContext): Promise<{ m: CapturedMessage; mail: ParsedMail }> {
  const m = await capturedById(c.ctx, c.params.id!, c.account.customer_id);
  if (m.raw === null)
    throw new AppError('email.content_purged', 'the content of this message was removed by retention');
  const { simpleParser } = await import('mailparser');
  return { m, mail: await simpleParser(m.raw) };
}

/** Registers the captured mail pages. */
export function capturedPages(app: FastifyInstance, ctx: AppContext): void {
  registerCapturedList(app, ctx);
  registerCapturedMessage(app, ctx);
  registerCapturedParts(app, ctx);
}

/** Registers the page listing the newest 100 captured messages. */
function registerCapturedList(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/captured',
    permission: 'read',
    title: 'Captured mail',
    // Envelope addresses and ids only; the content is behind the pages below.
    protectedContent: false,
    render: async (c) => {
      const list = await capturedOfAccount(c.ctx, c.account.customer_id, { limit: 100 });
      return html`<div class="card">
        <p class="muted">With the capture transport, Sealpost keeps each message here instead of sending it. The newest 100 are listed.</p>
        ${list.length === 0 ? html`<p>Nothing captured yet.</p>` : capturedTable(c, list)}
      </div>`;
    },
  });
}

/** The table of captured messages; the link to open one only for those who may read protected content. */
function capturedTable(c: ConsoleContext, list: CapturedMessage[]): SafeHtml {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Captured messages">
    <table class="stack">
      <thead>
        <tr>
          <th scope="col">Captured</th>
          <th scope="col">From</th>
          <th scope="col">To</th>
          <th scope="col">Message</th>
        </tr>
      </thead>
      <tbody>
        ${list.map(
          (m) =>
            html`<tr>
              <td data-label="Captured">${when(m.created_at)}</td>
              <td data-label="From">${m.envelope_from}</td>
              <td data-label="To">${m.envelope_to}</td>
              <td data-label="Message">
                ${
                  c.can('read_protected')
                    ? html`<a href="/console/captured/${m.id}">Open</a>`
                    : html`<span class="muted">content hidden</span>`
                }
                <br /><a href="/console/messages/${m.sourceTrackingId}" class="mono">${m.sourceTrackingId}</a>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** Registers one captured message's page; each opening is recorded in the audit trail. */
function registerCapturedMessage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/captured/:id',
    permission: 'read_protected',
    title: 'Captured message',
    protectedContent: CONTENT_READ,
    render: async (c) => {
      const { m, mail } = await openMessage(c);
      await auditRead(c, m, 'message');
      return messageBody(m, mail);
    },
  });
}

/** A captured message: its HTML in a sandboxed frame, text, headers, raw source and attachments. */
function messageBody(m: CapturedMessage, mail: ParsedMail): SafeHtml {
  return html`<div class="card">
      <h2>${mail.subject ?? '(no subject)'}</h2>
      <p>From ${mail.from?.text ?? m.envelope_from} to ${m.envelope_to} · ${when(m.created_at)}</p>
      ${
        mail.html
          ? html`<iframe
              class="mail-frame"
              title="HTML of the message"
              sandbox=""
              referrerpolicy="no-referrer"
              src="/console/captured/${m.id}/html"
            ></iframe>`
          : html`<p class="muted">No HTML part.</p>`
      }
    </div>
    <details class="card">
      <summary>Text</summary>
      <pre class="mono">${mail.text ?? ''}</pre>
    </details>
    <details class="card">
      <summary>Headers</summary>
      <pre class="mono">${mail.headerLines.map((h) => h.line).join('\n')}</pre>
    </details>
    <details class="card">
      <summary>Raw source</summary>
      <pre class="mono">${m.raw}</pre>
    </details>
    <div class="card">
      <h2>Attachments</h2>
      ${
        mail.attachments.length === 0
          ? html`<p>None.</p>`
          : html`<ul>
              ${mail.attachments.map(
                (a, i) =>
                  html`<li>
                    <a href="/console/captured/${m.id}/attachments/${i}">${a.filename ?? `attachment ${i + 1}`}</a>
                    (${a.contentType}, ${a.size.toLocaleString('en-US')} bytes)
                  </li>`,
              )}
            </ul>`
      }
    </div>
    <p><a href="/console/captured">All captured mail</a></p>`;
}

/** Registers a captured message's HTML (for the frame, under its own policy) and its attachments' downloads. */
function registerCapturedParts(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/console/captured/:id/html',
    { schema: { hide: true }, config: { protectedContent: CONTENT_READ } },
    async (req, reply) => {
      const c = await guard(ctx, req, reply, 'read_protected');
      if (!c) return reply;
      const { m, mail } = await openMessage(c);
      await auditRead(c, m, 'html');
      return reply
        .header('content-security-policy', MAIL_FRAME_CSP)
        .header('x-frame-options', 'SAMEORIGIN')
        .type('text/html; charset=utf-8')
        .send(typeof mail.html === 'string' ? mail.html : '');
    },
  );

  consolePage(app, ctx, {
    path: '/console/captured/:id/attachments/:n',
    permission: 'read_protected',
    title: 'Attachment',
    protectedContent: CONTENT_READ,
    render: async (c) => {
      const { m, mail } = await openMessage(c);
      const a = /^\d{1,4}$/.test(c.params.n!) ? mail.attachments[Number(c.params.n)] : undefined;
      if (!a) throw new AppError('not_found', 'the message has no such attachment');
      await auditRead(c, m, `attachment ${c.params.n!}`);
      return {
        download: {
          filename: a.filename ?? 'attachment',
          contentType: 'application/octet-stream',
          body: Buffer.from(a.content.subarray(0, a.size)),
        },
      };
    },
  });
}
