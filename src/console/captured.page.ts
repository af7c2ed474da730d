/**
 * Captured mail at `/console/captured` (the capture transport keeps every message instead of sending it): the list of
 * transactional, campaign and drip copies, filtered by kind, and one message with its HTML in a sandboxed frame under its own policy (no script, nothing loaded from elsewhere),
 * the text, the headers, the raw source and the attachments. Message content is protected: opening a message needs
 * the protected-content permission and is recorded in the audit trail (`captured.content_read`).
 */
import type { FastifyInstance } from 'fastify';
import type { ParsedMail } from 'mailparser';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { record } from '../audit/audit.service.ts';
import { capturedById, capturedOfAccount } from '../email/captured.service.ts';
import { capturedMarketingById, capturedMarketingOfAccount } from '../marketing/deliveries/captured.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { consolePage, guard, type ConsoleContext } from './page.ts';
import { when } from './format.ts';
import { MAIL_FRAME_CSP, sendMailFrame } from './mail-frame.ts';

const CONTENT_READ = 'captured.content_read';

/** The kinds of captured mail. */
const KINDS = ['transactional', 'campaign', 'drip'] as const;
type Kind = (typeof KINDS)[number];

/** A captured copy of any kind: `id` is the transactional copy's number or the campaign or drip delivery's UUID. */
interface Captured {
  id: string;
  kind: Kind;
  envelope_from: string;
  envelope_to: string;
  created_at: string;
  /** What the copy belongs to: the message's receipt, or the mailing or drip. */
  source: { href: string; text: string; mono: boolean } | null;
  /** The audit trail's target: the transactional message or the marketing delivery. */
  target: string;
}

/** Records a read of a captured message's content: the page, its HTML or an attachment (`part`). */
async function auditRead(c: ConsoleContext, m: Captured, part: string): Promise<void> {
  await record(c.ctx.database.db, {
    accountId: c.account.customer_id,
    actor: c.actor,
    action: CONTENT_READ,
    target: m.target,
    ip: c.ip,
    detail: { captured_id: m.id, kind: m.kind, part },
  });
}

/** One captured copy of the account with its raw message: a number names a transactional copy, a UUID a marketing one. */
async function findCopy(c: ConsoleContext): Promise<Captured & { raw: string | null }> {
  const id = c.params.id!;
  if (/^\d+$/.test(id)) {
    const m = await capturedById(c.ctx, id, c.account.customer_id);
    return { ...transactional(m), raw: m.raw };
  }
  const m = await capturedMarketingById(c.ctx, c.account.customer_id, id);
  return { ...marketing(m), raw: m.raw };
}

function transactional(m: Awaited<ReturnType<typeof capturedById>>): Captured {
  return {
    id: String(m.id),
    kind: 'transactional',
    envelope_from: m.envelope_from,
    envelope_to: m.envelope_to,
    created_at: m.created_at,
    source: { href: `/console/messages/${m.sourceTrackingId}`, text: m.sourceTrackingId, mono: true },
    target: `message:${m.sourceTrackingId}`,
  };
}

function marketing(m: Awaited<ReturnType<typeof capturedMarketingOfAccount>>[number]): Captured {
  const s = m.source;
  return {
    id: m.id,
    kind: m.kind,
    envelope_from: m.envelope_from,
    envelope_to: m.envelope_to,
    created_at: m.created_at,
    source: s && {
      href: s.kind === 'drip' ? `/console/campaigns/drips/${s.id}` : `/console/campaigns/mailings/${s.id}`,
      text: s.name,
      mono: false,
    },
    target: `marketing_delivery:${m.id}`,
  };
}

/** The newest `limit` captured copies of the account, of one kind or of all, newest first. */
async function listCopies(c: ConsoleContext, kind: Kind | undefined, limit: number): Promise<Captured[]> {
  const customerId = c.account.customer_id;
  const [tx, mk] = await Promise.all([
    kind === undefined || kind === 'transactional' ? capturedOfAccount(c.ctx, customerId, { limit }) : [],
    kind === 'transactional'
      ? []
      : capturedMarketingOfAccount(c.ctx, customerId, { kind: kind === undefined ? undefined : kind, limit }),
  ]);
  return [...tx.map(transactional), ...mk.map(marketing)]
    .sort((x, y) => y.created_at.localeCompare(x.created_at))
    .slice(0, limit);
}

async function openMessage(
  c: ConsoleContext,
): Promise<{ m: Captured & { raw: string | null }; mail: ParsedMail }> {
  const m = await findCopy(c);
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
      const kind = KINDS.find((k) => k === c.query.kind);
      const list = await listCopies(c, kind, 100);
      return html`${kindFilter(kind)}
        <div class="card">
          <p class="muted">
            With the capture transport, Sealpost keeps each message here instead of sending it: transactional messages,
            campaign copies and drip emails. The newest 100 are listed.
          </p>
          ${list.length === 0 ? html`<p>Nothing captured yet.</p>` : capturedTable(c, list)}
        </div>`;
    },
  });
}

/** The table of captured messages; the link to open one only for those who may read protected content. */
/** The filter by kind: a plain GET form, so it works without script. */
function kindFilter(kind: Kind | undefined): SafeHtml {
  return html`<form class="card filters" method="get" action="/console/captured" role="search">
    <div class="field">
      <label for="captured-kind">Kind</label>
      <select id="captured-kind" name="kind">
        <option value="">All kinds</option>
        ${KINDS.map((k) => html`<option value="${k}" ${kind === k ? html`selected` : ''}>${k}</option>`)}
      </select>
    </div>
    <div class="actions"><button type="submit" class="button">Show</button></div>
  </form>`;
}

function capturedTable(c: ConsoleContext, list: Captured[]): SafeHtml {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Captured messages">
    <table class="stack">
      <thead>
        <tr>
          <th scope="col">Captured</th>
          <th scope="col">Kind</th>
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
              <td data-label="Kind">${m.kind}</td>
              <td data-label="From">${m.envelope_from}</td>
              <td data-label="To">${m.envelope_to}</td>
              <td data-label="Message">
                ${
                  c.can('read_protected')
                    ? html`<a href="/console/captured/${m.id}">Open</a>`
                    : html`<span class="muted">content hidden</span>`
                }
                ${
                  m.source
                    ? html`<br /><a href="${m.source.href}" class="${m.source.mono ? 'mono' : ''}">${m.source.text}</a>`
                    : ''
                }
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
function messageBody(m: Captured & { raw: string | null }, mail: ParsedMail): SafeHtml {
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
      return sendMailFrame(reply, typeof mail.html === 'string' ? mail.html : '', MAIL_FRAME_CSP);
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
