/**
 * Campaign analytics pages beside a send's own page: the subscribers who clicked one link of a send
 * (`/console/campaigns/sends/:id/links/:html`, 50 a page) and two sends side by side (`/console/campaigns/compare`):
 * their totals and rates, and their first opens per hour after each one started, on one chart. Reading needs `read`.
 */
import { deliveredLabel, pageNumber } from '../format.ts';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { linkSubscribersOf, sendsTableOf } from '../../marketing/analytics/analytics.service.ts';
import { sendAnalytics, type SendAnalytics } from '../../marketing/analytics/timeline.service.ts';
import { chart, chartAssets } from '../chart.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { scrollTable } from '../layout.ts';
import { consolePage, type ConsoleContext } from '../page.ts';
import { seg } from '../audiences/audit.ts';
import { rate } from './analytics.view.ts';
import { subscriberTable } from '../audiences/subscriber-table.ts';

const PAGE_SIZE = 50;
const people = (n: number) => (n === 1 ? '1 person' : `${n.toLocaleString('en')} people`);
const HOUR = 3_600_000;

/** Registers the link clickers page and the comparison page. */
export function analyticsPages(app: FastifyInstance, ctx: AppContext): void {
  registerClickersPage(app, ctx);
  registerComparePage(app, ctx);
}

/** Registers the page of the subscribers who clicked one link of a send, 50 a page. */
function registerClickersPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/campaigns/sends/:id/links/:html',
    permission: 'read',
    title: 'Who clicked',
    render: async (c) => {
      const a = await sendAnalytics(ctx, c.account.customer_id, c.params.id!);
      const link = a.links.find((l) => String(l.html_id) === c.params.html);
      const page = pageNumber(c.query.page);
      const clickers = await linkSubscribersOf(ctx, c.account.customer_id, {
        campaign_mailing_send_id: a.send.uuid,
        html_id: link?.html_id ?? -1,
        order_by: 'email',
        order: 'asc',
        items: PAGE_SIZE,
        page,
      });
      const base = `/console/campaigns/sends/${seg(a.send.uuid)}`;
      const here = `${base}/links/${seg(c.params.html!)}`;
      return {
        title: 'Who clicked a link',
        body: html`<p><a href="${base}">← The send</a></p>
          <div class="card">
            <h2 class="mono">${link?.target_url ?? ''}</h2>
            <p>${people(link?.clickers ?? 0)} clicked this link. Page ${page}.</p>
            ${scrollTable('Subscribers who clicked', subscriberTable(clickers))}
            <p class="actions">
              ${page > 1 ? html`<a href="${here}?page=${String(page - 1)}">← Previous page</a>` : ''}
              ${clickers.length === PAGE_SIZE ? html`<a href="${here}?page=${String(page + 1)}">Next page →</a>` : ''}
            </p>
          </div>`,
      };
    },
  });
}

type SendsTable = Awaited<ReturnType<typeof sendsTableOf>>;

/** Registers the page that puts two chosen sends side by side. */
function registerComparePage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/campaigns/compare',
    permission: 'read',
    title: 'Compare two sends',
    render: async (c) => {
      const sends = await sendsTableOf(ctx, c.account.customer_id, {
        order_by: 'sent_at',
        order: 'desc',
        items: 100,
        page: 1,
      });
      const chosen = [c.query.a ?? '', c.query.b ?? ''];
      const picked = chosen.every(Boolean)
        ? await Promise.all(chosen.map((id) => sendAnalytics(ctx, c.account.customer_id, id)))
        : null;
      return html`<p><a href="/console/campaigns">← Campaigns</a></p>
        ${comparePicker(c, sends)}
        ${picked ? comparison(picked[0]!, picked[1]!, deliveredLabel(ctx).label) : ''}`;
    },
  });
}

/** The form that chooses the two sends to compare among the account's latest sends. */
function comparePicker(c: ConsoleContext, sends: SendsTable): SafeHtml {
  const label = (s: { id: number; subscription_list_name: string; sent_at: string }) =>
    `${s.subscription_list_name}, ${s.sent_at.slice(0, 16).replace('T', ' ')} UTC (send ${s.id})`;
  const select = (name: 'a' | 'b', text: string) =>
    html`<div class="field">
      <label for="compare-${name}">${text}</label>
      <select id="compare-${name}" name="${name}" required>
        <option value="">Choose a send</option>
        ${sends.map(
          (s) =>
            html`<option value="${s.id}" ${isChosen(s, c.query[name]) ? html`selected` : ''}>${label(s)}</option>`,
        )}
      </select>
    </div>`;
  return html`<div class="card">
    <form class="filters" method="get" action="/console/campaigns/compare">
      ${select('a', 'First send')} ${select('b', 'Second send')}
      <button type="submit">Compare</button>
    </form>
    ${sends.length < 2 ? html`<p>Two sends are needed to compare; this account has ${sends.length}.</p>` : ''}
  </div>`;
}

/** Whether a send is the one a link chose: by its integer id, or by its UUID (links made before ids were integers). */
function isChosen(s: { id: number; uuid: string }, chosen: string | undefined): boolean {
  return chosen !== undefined && (chosen === String(s.id) || chosen.toLowerCase() === s.uuid);
}

/** The two sends' totals and rates in one table, and their first opens per hour on one chart. */
function comparison(a: SendAnalytics, b: SendAnalytics, delivered: string): SafeHtml {
  // Named by list and place (a UUID means nothing to a reader); each heading links to its send.
  const name = (x: SendAnalytics) =>
    `${x.send.subscription_list_name} (${x === a ? 'first' : 'second'} send)`;
  const rows: [string, (x: SendAnalytics) => string][] = [
    ['Emails sent', (x) => x.totals.sent.toLocaleString('en')],
    [
      delivered,
      (x) => `${x.totals.delivered.toLocaleString('en')} (${rate(x.totals.delivered, x.totals.sent)})`,
    ],
    ['Bounced', (x) => `${x.totals.bounced.toLocaleString('en')} (${rate(x.totals.bounced, x.totals.sent)})`],
    [
      'Opened',
      (x) => `${x.totals.opened.toLocaleString('en')} (${rate(x.totals.opened, x.totals.delivered)})`,
    ],
    [
      'Clicked',
      (x) => `${x.totals.clicked.toLocaleString('en')} (${rate(x.totals.clicked, x.totals.delivered)})`,
    ],
    [
      'Unsubscribed',
      (x) => {
        const n = x.totals.unsubscribed + x.totals.global_unsubscribed;
        return `${n.toLocaleString('en')} (${rate(n, x.totals.delivered)})`;
      },
    ],
  ];
  const hours = Math.max(a.hourly?.x.length ?? 0, b.hourly?.x.length ?? 0);
  const opensOf = (x: SendAnalytics) => Array.from({ length: hours }, (_, i) => x.hourly?.opens[i] ?? 0);
  return html`${chartAssets()}
    <div class="card">
      <h2>Side by side</h2>
      ${scrollTable(
        'The two sends side by side',
        html`<table class="compare-table">
          <thead>
            <tr>
              <th scope="col">Figure</th>
              <th scope="col"><a href="/console/campaigns/sends/${seg(a.send.uuid)}">${name(a)}</a></th>
              <th scope="col"><a href="/console/campaigns/sends/${seg(b.send.uuid)}">${name(b)}</a></th>
            </tr>
          </thead>
          <tbody>
            ${rows.map(
              ([label, value]) =>
                html`<tr>
                  <th scope="row">${label}</th>
                  <td>${value(a)}</td>
                  <td>${value(b)}</td>
                </tr>`,
            )}
          </tbody>
        </table>`,
      )}
    </div>
    <div class="card">
      ${chart({
        title: 'First opens per hour after each send started (first two days)',
        x: Array.from({ length: hours }, (_, i) => i * HOUR),
        series: [
          { label: name(a), values: opensOf(a) },
          { label: name(b), values: opensOf(b) },
        ],
        yLabel: 'Emails',
        xHeader: 'Hour after the start',
        xText: (ms) => `${Math.round(ms / HOUR)}`,
        hours: true,
      })}
    </div>`;
}
