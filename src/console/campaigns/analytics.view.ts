/**
 * The analytics part of a send's page: opens and clicks per hour for the first two days and per day after (uPlot charts
 * with their numbers as tables), the delivered, bounced and unsubscribed totals, and the links with their clicks, a heat
 * bar (an SVG, since the console's policy allows no style attributes) and a link to the people who clicked each one.
 */
import type { SendAnalytics, Series } from '../../marketing/analytics/timeline.service.ts';
import { chart, chartAssets } from '../chart.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { scrollTable } from '../layout.ts';

const hourText = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A share as a percentage with one decimal, or a dash when there is nothing to divide by. */
export function rate(part: number, whole: number): string {
  return whole > 0 ? `${(Math.round((part / whole) * 1000) / 10).toFixed(1)}%` : '–';
}

function seriesChart(title: string, s: Series, daily: boolean): SafeHtml {
  return chart({
    title,
    x: s.x,
    series: [
      { label: 'Opened', values: s.opens },
      { label: 'Clicked', values: s.clicks },
    ],
    yLabel: 'Emails',
    xHeader: daily ? 'Day from (UTC)' : 'Hour from (UTC)',
    xText: daily ? dayText : hourText,
  });
}

/** A bar as wide as `value` is of `max`, drawn in SVG. */
export function heatBar(value: number, max: number): SafeHtml {
  const width = max > 0 ? Math.round((value / max) * 1000) / 10 : 0;
  return html`<svg class="heat" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
    <rect class="heat-track" x="0" y="0" width="100" height="10"></rect>
    <rect class="heat-fill" x="0" y="0" width="${String(width)}" height="10"></rect>
  </svg>`;
}

/** The totals, the charts and the links of a send; `base` is the send page's path. */
export function analyticsSection(
  a: SendAnalytics,
  base: string,
  delivered: { word: string; label: string },
): SafeHtml {
  const t = a.totals;
  const max = Math.max(0, ...a.links.map((l) => l.clicks));
  const figure = (label: string, value: number, of?: number) =>
    html`<div>
      <dt>${label}</dt>
      <dd>${value.toLocaleString('en')}${of === undefined ? '' : html` <span class="muted rate">${rate(value, of)}</span>`}</dd>
    </div>`;
  return html`${chartAssets()}
    <div class="card">
      <h2>Results</h2>
      <dl class="figures">
        ${figure(delivered.label, t.delivered, t.sent)} ${figure('Bounced', t.bounced, t.sent)}
        ${figure('Opened', t.opened, t.delivered)} ${figure('Clicked', t.clicked, t.delivered)}
        ${figure('Unsubscribed from the list', t.unsubscribed, t.delivered)}
        ${figure('Unsubscribed from everything', t.global_unsubscribed, t.delivered)}
      </dl>
      <p class="muted">Rates of ${delivered.word} and bounced are of the emails sent; the others of the emails ${delivered.word}.</p>
    </div>
    <div class="card">
      <h2>Opens and clicks over time</h2>
      ${
        a.hourly
          ? html`${seriesChart('First opens and first clicks per hour, first two days', a.hourly, false)}
            ${a.daily ? seriesChart('First opens and first clicks per day, after the first two days', a.daily, true) : ''}`
          : html`<p>Nothing yet: the send has not started.</p>`
      }
      <p class="muted">Each email counts once, at its first open and at its first click. A click counts as an open too.</p>
    </div>
    <div class="card">
      <h2>Clicks per link</h2>
      ${
        a.links.length === 0
          ? html`<p>This mailing has no tracked links.</p>`
          : scrollTable(
              'Clicks per link',
              html`<table class="stack links-table">
                <thead>
                  <tr>
                    <th scope="col">Link</th>
                    <th scope="col">Clicks</th>
                    <th scope="col">People</th>
                    <th scope="col"><span class="sr-only">Compared with the most clicked link</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${a.links.map(
                    (l) =>
                      html`<tr>
                        <td data-label="Link">
                          <span class="mono">${l.target_url}</span><br />
                          ${
                            l.clickers > 0
                              ? html`<a href="${base}/links/${String(l.html_id)}" aria-label="See who clicked ${l.target_url}">See who clicked</a>`
                              : ''
                          }
                        </td>
                        <td data-label="Clicks">${l.clicks.toLocaleString('en')}</td>
                        <td data-label="People">${l.clickers.toLocaleString('en')}</td>
                        <td data-label="Compared with the most clicked link">${heatBar(l.clicks, max)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`,
            )
      }
    </div>`;
}
