/**
 * Charts for console pages, one library for the whole console: uPlot, served from the installation. `chart(spec)`
 * gives a figure whose data rides in a data attribute (no inline script, so the strict CSP holds) with a table of the
 * same numbers (for screen readers and without script); `chartAssets()` once per page loads uPlot and the drawing
 * helper (src/console/assets/charts.js).
 */
import { assetUrl } from './assets.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { when } from './format.ts';

/** A chart over time: one x value (ms) per point, one or more named series of numbers. */
export interface ChartSpec {
  /** The figure's caption. */
  title: string;
  x: number[];
  series: { label: string; values: number[] }[];
  yLabel?: string;
  /** How an x value reads in the table (a date by default). */
  xText?: (ms: number) => string;
  /** The heading of the table's first column ("Day" by default). */
  xHeader?: string;
  /** The x values are hours after a start, not points in time: the axis counts hours. */
  hours?: boolean;
}

/** The stylesheet and scripts a page with charts includes once. */
export function chartAssets(): SafeHtml {
  return html`<link rel="stylesheet" href="${assetUrl('uplot.css')}" />
    <script src="${assetUrl('uplot.js')}" defer></script>
    <script src="${assetUrl('charts.js')}" defer></script>`;
}

/** A figure with the chart and its numbers as a table. */
export function chart(spec: ChartSpec): SafeHtml {
  const xText = spec.xText ?? ((ms: number) => when(ms).slice(0, 10));
  const xHeader = spec.xHeader ?? 'Day';
  const data = JSON.stringify({
    x: spec.x,
    xHeader,
    xTexts: spec.x.map(xText),
    series: spec.series,
    yLabel: spec.yLabel ?? '',
    ...(spec.hours && { hours: true }),
  });
  return html`<figure class="chart" data-chart="${data}">
    <figcaption>${spec.title}</figcaption>
    <div class="chart-canvas" aria-hidden="true"></div>
    <div class="table-wrap" tabindex="0" role="region" aria-label="${spec.title}, as a table">
      <table class="chart-table stack">
        <thead>
          <tr>
            <th scope="col">${xHeader}</th>
            ${spec.series.map((s) => html`<th scope="col">${s.label}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${spec.x.map(
            (x, i) =>
              html`<tr>
                <th scope="row" data-label="${xHeader}">${xText(x)}</th>
                ${spec.series.map((s) => html`<td data-label="${s.label}">${s.values[i] ?? 0}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </figure>`;
}
