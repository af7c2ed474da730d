/**
 * The message log at `/console/messages`: search by recipient, tracking id, subject, status and date range, in keyset
 * pages (newest first, "Older" follows a cursor; nothing counts all rows), and a message's receipt as a timeline per
 * recipient. Content stays hidden: "Show content" opens the message's content page, which needs the protected-content
 * permission and writes an audit entry for each view before anything is shown.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { record } from '../audit/audit.service.ts';
import {
  messageTimeline,
  readMessageContent,
  searchLog,
  type LogQuery,
} from '../email/message-log.service.ts';
import { formatMailbox } from '../mail/addresses.ts';
import type { StoredContent } from '../mail/content.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { consolePage, type ConsoleContext } from './page.ts';
import { statusWord, when } from './format.ts';

const STATUSES = ['queued', 'deferred', 'delivered', 'failed'] as const;
const DAY = 86_400_000;

function day(value: string | undefined, label: string): number | undefined {
  if (!value) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (Number.isNaN(ms)) throw new AppError('request.invalid', `${label} must be a date like 2026-11-25`);
  return ms;
}

function queryOf(c: ConsoleContext): LogQuery {
  const q = c.query;
  const status =
    q.status && (STATUSES as readonly string[]).includes(q.status)
      ? (q.status as LogQuery['status'])
      : undefined;
  const to = day(q.to, 'The end date');
  return {
    recipient: q.recipient,
    trackingId: q.id,
    subject: q.subject,
    status,
    from: day(q.from, 'The start date'),
    to: to === undefined ? undefined : to + DAY,
    after: q.after,
  };
}

function searchForm(c: ConsoleContext): SafeHtml {
  const q = c.query;
  const input = (name: string, label: string, type = 'text') =>
    html`<div class="field">
      <label for="log-${name}">${label}</label>
      <input id="log-${name}" name="${name}" type="${type}" value="${q[name] ?? ''}" />
    </div>`;
  return html`<form class="card filters" method="get" action="/console/messages" role="search">
    ${input('recipient', 'Recipient', 'email')} ${input('id', 'Tracking id')}
    ${c.can('read_protected') ? input('subject', 'Subject (exact; recorded in the audit trail)') : ''}
    <div class="field">
      <label for="log-status">Status</label>
      <select id="log-status" name="status">
        <option value="">Any</option>
        ${STATUSES.map(
          (s) =>
            html`<option value="${s}" ${q.status === s ? html`selected` : ''}>${statusWord(c.ctx, s)}</option>`,
        )}
      </select>
    </div>
    ${input('from', 'From', 'date')} ${input('to', 'To', 'date')}
    <div class="actions"><button type="submit" class="button">Search</button> <a href="/console/messages">Clear</a></div>
  </form>`;
}

function nextLink(c: ConsoleContext, next: string | null): SafeHtml {
  if (!next) return html``;
  const params = new URLSearchParams(
    Object.entries(c.query).filter((e): e is [string, string] => !!e[1] && e[0] !== 'after'),
  );
  params.set('after', next);
  return html`<p><a class="button secondary" href="/console/messages?${params.toString()}">Older messages</a></p>`;
}

/**
 * Records a search by subject: subjects are sealed content, and a match confirms a guessed one. The subject searched for
 * is not written (the trail would then hold content); who searched, when and how many messages matched are.
 */
async function auditSubjectSearch(c: ConsoleContext, matches: number): Promise<void> {
  await record(c.ctx.database.db, {
    accountId: c.account.customer_id,
    actor: c.actor,
    action: 'message.subject_search',
    target: `account:${c.account.customer_id}`,
    ip: c.ip,
    detail: { matches },
  });
}

/** Registers the message log pages. */
export function messagePages(app: FastifyInstance, ctx: AppContext): void {
  registerLogPage(app, ctx);
  registerMessagePage(app, ctx);
  registerShowContent(app, ctx);
}

type LogPage = Awaited<ReturnType<typeof searchLog>>;

/** Registers the searchable log, newest first, in keyset pages. */
function registerLogPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/messages',
    permission: 'read',
    title: 'Messages',
    render: async (c) => {
      const bySubject = !!c.query.subject?.trim();
      if (bySubject && !c.can('read_protected'))
        throw new AppError(
          'console.forbidden',
          'searching by subject reads protected content, which your role does not allow; ask an owner of the account',
        );
      const page = await searchLog(c.ctx, c.account.customer_id, queryOf(c));
      if (bySubject) await auditSubjectSearch(c, page.messages.length);
      return html`${searchForm(c)}
        <div class="card">
          ${page.messages.length === 0 ? html`<p>No messages match.</p>` : logTable(c, page)}
          ${c.query.after ? html`<p><a href="/console/messages">Newest messages</a></p>` : ''} ${nextLink(c, page.next)}
        </div>`;
    },
  });
}

/** The table of the messages found, with each recipient's status. */
function logTable(c: ConsoleContext, page: LogPage): SafeHtml {
  return html`<div class="table-wrap">
    <table class="stack">
      <thead>
        <tr>
          <th scope="col">Accepted</th>
          <th scope="col">Tracking id</th>
          <th scope="col">From</th>
          <th scope="col">Recipients</th>
          <th scope="col">Opens / clicks</th>
        </tr>
      </thead>
      <tbody>
        ${page.messages.map(
          (m) =>
            html`<tr>
              <td data-label="Accepted">${when(m.created_at)}</td>
              <td data-label="Tracking id"><a href="/console/messages/${m.id}" class="mono">${m.id}</a></td>
              <td data-label="From">${m.from_addr}</td>
              <td data-label="Recipients">
                ${m.recipients.map((r) => html`<div>${r.address} <span class="muted">${statusWord(c.ctx, r.status)}</span></div>`)}
              </td>
              <td data-label="Opens / clicks">${m.total_opens} / ${m.total_clicks}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** A message's receipt and a timeline per recipient; `content` once it was asked for, else how to show it. */
async function messageDetail(c: ConsoleContext, content?: SafeHtml): Promise<SafeHtml> {
  const t = await messageTimeline(c.ctx, c.account.customer_id, c.params.id!);
  const m = t.message;
  const contentCard = content
    ? content
    : !m.hasContent
      ? html`<p class="muted">The content of this message was removed by retention.</p>`
      : c.can('read_protected')
        ? html`<form method="get" action="/console/messages/${m.id}/content">
            <p class="muted">The content is hidden. Showing it is recorded in the audit trail with your name.</p>
            <button type="submit" class="button">Show content</button>
          </form>`
        : html`<p class="muted">The content is hidden: your role does not allow reading protected content.</p>`;
  return html`<div class="card">
      <p>Tracking id <code class="mono">${m.id}</code> · from ${m.from_addr} · accepted ${when(m.created_at)} · ${m.source}</p>
      <p>Opens ${m.total_opens}, clicks ${m.total_clicks}</p>
      ${contentCard}
    </div>
    ${t.recipients.map(
      (r) =>
        html`<section class="card" aria-label="Timeline for ${r.address}">
          <h2>${r.address}</h2>
          <p class="muted">
            ${statusWord(c.ctx, r.status)} · ${statusWord(c.ctx, r.delivery_status)} · ${r.attempts} attempt${r.attempts === 1 ? '' : 's'}</p>
          <ol class="timeline">
            ${r.steps.map(
              (s) =>
                html`<li><strong>${statusWord(c.ctx, s.what)}</strong> <span class="muted">${when(s.at)}</span>
                  ${s.detail
                    .split(' — ')
                    .map((part) => statusWord(c.ctx, part))
                    .join(' — ')}</li>`,
            )}
          </ol>
        </section>`,
    )}
    <p><a href="/console/messages">Back to the log</a></p>`;
}

/** Registers one message's page, its content hidden. */
function registerMessagePage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/messages/:id',
    permission: 'read',
    title: 'Message',
    render: async (c) => messageDetail(c),
  });
}

/**
 * Registers "Show content": the message's page with its stored content, read through the service, which records each
 * view in the audit trail. A page, not a form's answer, so that a reload shows it again instead of posting again.
 */
function registerShowContent(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/messages/:id/content',
    permission: 'read_protected',
    protectedContent: 'message.content_read',
    title: 'Message',
    render: async (c) => {
      const content = await readMessageContent(c.ctx, c.account.customer_id, c.params.id!, {
        actor: c.actor,
        ip: c.ip,
        allowed: c.can('read_protected'),
      });
      return { title: 'Message', body: await messageDetail(c, contentBody(content)) };
    },
  });
}

/** A message's stored content: subject, addresses, text, HTML source and attachment names. */
function contentBody(content: StoredContent): SafeHtml {
  return html`<div class="message-content">
    <h2>Content</h2>
    <p><strong>Subject:</strong> ${content.subject}</p>
    <p><strong>From:</strong> ${formatMailbox(content.from)}</p>
    <p><strong>To:</strong> ${content.to.map(formatMailbox).join(', ')}</p>
    ${content.cc.length > 0 ? html`<p><strong>Cc:</strong> ${content.cc.map(formatMailbox).join(', ')}</p>` : ''}
    ${
      content.text
        ? html`<h3>Text</h3>
            <pre class="mono">${content.text}</pre>`
        : ''
    }
    ${
      content.html
        ? html`<h3>HTML source</h3>
            <pre class="mono">${content.html}</pre>`
        : ''
    }
    ${
      content.attachments.length > 0
        ? html`<p><strong>Attachments:</strong> ${content.attachments.map((a) => a.fileName).join(', ')}</p>`
        : ''
    }
  </div>`;
}
