/**
 * The audit trail page for owners: filter by action, actor and dates, page back in time, export as CSV. Read only.
 * Entries name users, forms, responses and messages with links to them, and show times in the user's time zone
 * (UTC on hover); the CSV keeps the recorded ids and UTC.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { searchAudit, type AuditFilter } from '../audit/audit.service.ts';
import { csvCell } from '../forms/submissions/exports.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { auditNames, namedCell } from './audit.names.ts';
import { readCookie, TIME_ZONE_COOKIE } from './cookies.ts';
import { wallClock, wallTimeToEpoch, zoneOrUtc } from './time-zone.ts';
import { scrollTable } from './layout.ts';
import { consolePage, type ConsoleContext } from './page.ts';

const PATH = '/console/settings/audit';
const PAGE = 50;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The user's time zone, as the browser reported it; UTC without one. */
function zoneOf(c: ConsoleContext): string {
  return zoneOrUtc(readCookie(c.req, TIME_ZONE_COOKIE));
}

/** The filter a query string asks for (dates are whole days of the user's time zone, `to` inclusive). */
function filterOf(c: ConsoleContext, limit: number): AuditFilter {
  const q = c.query;
  const tz = zoneOf(c);
  const valid = (v: string | undefined): v is string => !!v && DAY.test(v) && !Number.isNaN(Date.parse(v));
  const startOf = (v: string) => wallTimeToEpoch(`${v}T00:00`, tz);
  const dayAfter = (v: string) =>
    new Date(Date.parse(`${v}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return {
    customerId: c.account.customer_id,
    action: q.action?.trim() || undefined,
    actorId: q.actor?.trim() || undefined,
    from: valid(q.from) ? startOf(q.from) : undefined,
    to: valid(q.to) ? startOf(dayAfter(q.to)) : undefined,
    before: q.before && /^\d+$/.test(q.before) ? Number(q.before) : undefined,
    limit,
  };
}

function filters(c: ConsoleContext): SafeHtml {
  const q = c.query;
  return html`<form method="get" action="${PATH}" class="filters card" role="search" aria-label="Filter the audit trail">
    <div class="field">
      <label for="f-action">Action</label
      ><input id="f-action" name="action" type="text" value="${q.action ?? ''}" placeholder="sign_in.failure" />
    </div>
    <div class="field"><label for="f-actor">Actor id</label><input id="f-actor" name="actor" type="text" value="${q.actor ?? ''}" /></div>
    <div class="field"><label for="f-from">From</label><input id="f-from" name="from" type="date" value="${q.from ?? ''}" /></div>
    <div class="field"><label for="f-to">To</label><input id="f-to" name="to" type="date" value="${q.to ?? ''}" /></div>
    <button type="submit">Filter</button>
  </form>`;
}

/** When an entry was made: the user's wall clock, and UTC in the `datetime` and on hover. */
function timeCell(at: string, tz: string): SafeHtml {
  const utc = `${at.slice(0, 19).replace('T', ' ')} UTC`;
  return html`<time datetime="${at}" title="${utc}">${wallClock(Date.parse(at), tz)}</time>`;
}

function query(c: ConsoleContext, extra: Record<string, string>): string {
  const p = new URLSearchParams();
  for (const k of ['action', 'actor', 'from', 'to']) if (c.query[k]) p.set(k, c.query[k]!);
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  return p.toString();
}

/** Streams an account's matching entries as CSV, newest first, in keyset pages. */
function auditCsv(ctx: AppContext, filter: AuditFilter): Readable {
  async function* rows() {
    yield (
      ['id', 'at', 'actor_type', 'actor_id', 'action', 'target', 'ip', 'detail'].map(csvCell).join(',') +
      '\r\n'
    );
    let before = filter.before;
    for (;;) {
      const page = await searchAudit(ctx.database.reader, { ...filter, before, limit: 500 });
      for (const e of page)
        yield (
          [
            String(e.id),
            e.at,
            e.actor_type,
            e.actor_id,
            e.action,
            e.target,
            e.ip ?? '',
            JSON.stringify(e.detail),
          ]
            .map(csvCell)
            .join(',') + '\r\n'
        );
      if (page.length < 500) return;
      before = page[page.length - 1]!.id;
    }
  }
  return Readable.from(rows());
}

/** Registers the audit trail page and its CSV export. */
export function auditPages(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: PATH,
    permission: 'manage_users',
    title: 'Audit trail',
    render: async (c) => {
      const entries = await searchAudit(ctx.database.reader, filterOf(c, PAGE + 1));
      const more = entries.length > PAGE;
      const shown = entries.slice(0, PAGE);
      const names = await auditNames(c, shown);
      const tz = zoneOf(c);
      return html`<p class="muted">
          Every sign-in, change and view of protected content in ${c.account.username}, newest first. Entries cannot be changed; they are
          kept for ${ctx.config.auditRetentionDays} days. ${tz === 'UTC' ? 'Times are in UTC.' : `Times are in your time zone, ${tz}; point at one to see it in UTC.`}
        </p>
        ${filters(c)}
        <p class="actions"><a class="button secondary" href="${PATH}/export.csv?${query(c, {})}">Export as CSV</a></p>
        ${scrollTable(
          'Audit entries',
          html`<table class="stack">
            <caption class="sr-only">
              Audit entries
            </caption>
            <thead>
              <tr>
                <th scope="col">When (${tz})</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              ${
                shown.length === 0
                  ? html`<tr>
                      <td colspan="5">No entries match.</td>
                    </tr>`
                  : ''
              }
              ${shown.map(
                (e) =>
                  html`<tr>
                    <td data-label="When">${timeCell(e.at, tz)}</td>
                    <td data-label="Who">${namedCell(names.actor(e), `${e.actor_type}:${e.actor_id}`)}</td>
                    <td data-label="Action"><code>${e.action}</code></td>
                    <td data-label="Target">${namedCell(names.target(e), e.target)}</td>
                    <td data-label="From">${e.ip ?? ''}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`,
        )}
        ${more ? html`<p><a href="${PATH}?${query(c, { before: String(shown[shown.length - 1]!.id) })}">Older entries</a></p>` : ''}`;
    },
  });
  consolePage(app, ctx, {
    path: `${PATH}/export.csv`,
    permission: 'manage_users',
    title: 'Audit trail export',
    audit: {
      action: 'audit.export',
      target: (c) => `account:${c.account.customer_id}`,
      detail: (c) => ({ query: query(c, {}) }),
    },
    render: async (c) => {
      return {
        download: {
          filename: `audit-${c.account.username}.csv`,
          contentType: 'text/csv; charset=utf-8',
          body: auditCsv(ctx, filterOf(c, 500)),
        },
      };
    },
  });
}
