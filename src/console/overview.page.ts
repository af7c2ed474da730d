/**
 * The overview at `/console`: a getting-started checklist until its steps are done, today and the last 7 days
 * (accepted, delivered, deferred, bounced, opened, clicked), a chart of the week, the delivery queue (recipients
 * waiting, age of the oldest) and webhook endpoints that are failing.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { accountOverview, type PeriodCounts } from '../email/stats.service.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { consolePage } from './page.ts';
import { chart, chartAssets } from './chart.ts';
import { firstStepsDone } from '../accounts/getting-started.service.ts';
import { gettingStarted } from './getting-started.view.ts';
import { deliveredLabel, duration, when } from './format.ts';

const LABELS: [keyof PeriodCounts, string][] = [
  ['accepted', 'Accepted'],
  ['delivered', 'Delivered'],
  ['deferred', 'Deferred'],
  ['bounced', 'Bounced'],
  ['opened', 'Opened'],
  ['clicked', 'Clicked'],
];

/** A period's figures; `delivered` is how the console words delivered mail (see deliveredLabel). */
function figures(title: string, counts: PeriodCounts, delivered: string): SafeHtml {
  return html`<section class="card" aria-labelledby="fig-${title.replace(/\W+/g, '-')}">
    <h2 id="fig-${title.replace(/\W+/g, '-')}">${title}</h2>
    <dl class="figures">
      ${LABELS.map(
        ([k, label]) =>
          html`<div>
            <dt>${k === 'delivered' ? delivered : label}</dt>
            <dd>${counts[k].toLocaleString('en-US')}</dd>
          </div>`,
      )}
    </dl>
  </section>`;
}

/** Registers the overview. */
export function overviewPages(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console',
    permission: 'read',
    title: 'Overview',
    render: async (c) => {
      const [o, steps] = await Promise.all([
        accountOverview(c.ctx, c.account.customer_id),
        firstStepsDone(c.ctx, c.account.customer_id),
      ]);
      const delivered = deliveredLabel(c.ctx).label;
      return html`${chartAssets()}
        <p class="muted">
          Signed in as <strong>${c.user.email}</strong>,
          ${
            c.viewingOther
              ? html`the installation operator, viewing the account <strong>${c.account.username}</strong> (read only)`
              : html`${c.user.role} of the account <strong>${c.account.username}</strong>`
          }. Days are UTC.
        </p>
        ${gettingStarted(steps)} ${figures('Today', o.today, delivered)} ${figures('Last 7 days', o.week, delivered)}
        <section class="card">
          ${chart({
            title: 'Messages per day, last 7 days',
            x: o.days.map((d) => d.start),
            series: [
              { label: 'Accepted', values: o.days.map((d) => d.counts.accepted) },
              { label: delivered, values: o.days.map((d) => d.counts.delivered) },
              { label: 'Bounced', values: o.days.map((d) => d.counts.bounced) },
              { label: 'Opened', values: o.days.map((d) => d.counts.opened) },
            ],
          })}
        </section>
        <section class="card">
          <h2>Delivery queue</h2>
          <p>
            ${o.queue.waiting.toLocaleString('en-US')} recipient${o.queue.waiting === 1 ? '' : 's'}
            waiting${
              o.queue.oldestAgeMs === null
                ? '.'
                : html`; the oldest unfinished message was accepted ${duration(o.queue.oldestAgeMs)} ago (${when(o.queue.oldest)}).`
            }
          </p>
        </section>
        <section class="card">
          <h2>Webhook endpoints</h2>
          ${
            o.failing.length === 0
              ? html`<p>No endpoint is failing.</p>`
              : html`<ul>
                  ${o.failing.map(
                    (e) =>
                      html`<li>
                        <a href="/console/webhooks/${e.id}">${e.target_url}</a> —
                        ${
                          e.disabled_at !== null
                            ? html`<strong class="error-text">disabled</strong>
                                ${when(e.disabled_at)}${e.disabled_reason ? `: ${e.disabled_reason}` : ''}`
                            : html`<strong class="error-text">failing</strong>: ${e.failure_streak} failed
                                attempt${e.failure_streak === 1 ? '' : 's'} in a row since ${when(e.streak_started_at)}`
                        }
                      </li>`,
                  )}
                </ul>`
          }
        </section>`;
    },
  });
}
