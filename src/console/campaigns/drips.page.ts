/**
 * Drip campaigns at `/console/campaigns/drips`: the account's drips with their state and enrolled and completed counts,
 * and one drip's page with its graph drawn (nodes, edges, figures per node), the same figures as a table, and start and
 * pause through the same service as the API. Looking needs `read`; starting and pausing need `edit_content` and are
 * audited (`drip.start`, `drip.pause`).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { dripsOf, pauseDrip, requireDrip, startDrip } from '../../marketing/drips/drips.service.ts';
import { dripDiagram, type DripDiagram } from '../../marketing/drips/drips.counts.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField, scrollTable } from '../layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from '../page.ts';
import { audited, seg } from '../audiences/audit.ts';
import { dripSvg, nodeLabel } from './drip-graph.view.ts';
import { NoFields } from '../action.schemas.ts';

const STATES: Record<string, string> = {
  draft: 'Draft (not started)',
  active: 'Active',
  paused: 'Paused',
};

/** Registers the drip pages and their start and pause actions. */
export function dripPages(app: FastifyInstance, ctx: AppContext): void {
  registerDripsPage(app, ctx);
  registerDripPage(app, ctx);
  registerDripActions(app, ctx);
}

type Drips = Awaited<ReturnType<typeof dripsOf>>;

/** Registers the page of the account's drips. */
function registerDripsPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/campaigns/drips',
    permission: 'read',
    title: 'Drip campaigns',
    render: async (c) => {
      const drips = await dripsOf(ctx, c.account.customer_id, {
        order_by: 'created_at',
        order: 'desc',
        page: 1,
        items: 200,
      });
      return html`<p><a href="/console/campaigns">← Campaigns</a></p>
        <div class="card">
          <h2>Drips</h2>
          ${
            drips.length === 0
              ? html`<p>No drip campaigns yet. They are designed through the API (<code>/drip_campaigns</code>).</p>`
              : dripsTable(drips)
          }
        </div>`;
    },
  });
}

/** The table of drips with their state, list and enrolled and completed counts. */
function dripsTable(drips: Drips): SafeHtml {
  return scrollTable(
    'Drip campaigns',
    html`<table class="stack">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">State</th>
          <th scope="col">List</th>
          <th scope="col">Enrolled</th>
          <th scope="col">Completed</th>
        </tr>
      </thead>
      <tbody>
        ${drips.map(
          (d) =>
            html`<tr>
              <td data-label="Name"><a href="/console/campaigns/drips/${seg(d.id)}">${d.attributes.name}</a></td>
              <td data-label="State">${STATES[d.attributes.state] ?? d.attributes.state}</td>
              <td data-label="List">${d.attributes.subscription_list_name}</td>
              <td data-label="Enrolled">${d.attributes.subscriber_count.toLocaleString('en')}</td>
              <td data-label="Completed">${d.attributes.subscriber_completed_count.toLocaleString('en')}</td>
            </tr>`,
        )}
      </tbody>
    </table>`,
  );
}

/** Registers one drip's page: its state with start or pause, and its steps drawn and tabled. */
function registerDripPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/campaigns/drips/:id',
    permission: 'read',
    title: 'Drip',
    render: async (c) => {
      const d = await dripDiagram(ctx, c.account.customer_id, c.params.id!);
      return {
        title: `Drip: ${d.drip.name}`,
        body: html`<p><a href="/console/campaigns/drips">← Drip campaigns</a></p>
          ${stateCard(c, d)}
          <div class="card">
            <h2>Steps</h2>
            ${d.graph.startId === null ? html`<p>This drip has no steps yet.</p>` : html`${dripSvg(d)} ${stepsTable(d)}`}
            <p class="muted">
              "Here now" counts subscribers whose next step this is (waiting, or parked while the drip is paused).
            </p>
          </div>`,
      };
    },
  });
}

/** Why an enrollment stopped, as the drip page says it. */
const STOP_REASONS: Record<string, string> = {
  unsubscribed: 'unsubscribed from the list or from all mail',
  subscriber_gone: 'were deleted as subscribers',
  node_removed: 'were waiting at a step an edit removed',
};

/** The drip's state, list and counts, with the start, pause or resume button for `edit_content`. */
function stateCard(c: ConsoleContext, d: DripDiagram): SafeHtml {
  const base = `/console/campaigns/drips/${seg(d.drip.uuid)}`;
  const state = d.drip.state;
  const verb = state === 'active' ? 'pause' : 'start';
  return html`<div class="card">
    <h2>State</h2>
    <dl class="stats">
      <div>
        <dt>State</dt>
        <dd data-field="state">${STATES[state] ?? state}</dd>
      </div>
      <div>
        <dt>List</dt>
        <dd>${d.drip.subscription_list_name}</dd>
      </div>
      <div>
        <dt>Enrolled</dt>
        <dd data-field="enrolled">${Number(d.drip.subscriber_count).toLocaleString('en')}</dd>
      </div>
      <div>
        <dt>Completed</dt>
        <dd data-field="completed">${Number(d.drip.subscriber_completed_count).toLocaleString('en')}</dd>
      </div>
      <div>
        <dt>Stopped</dt>
        <dd data-field="stopped">${d.stops.reduce((n, s) => n + s.n, 0).toLocaleString('en')}</dd>
      </div>
    </dl>
    ${
      d.stops.length
        ? html`<ul class="stop-reasons" aria-label="Why enrollments stopped">
            ${d.stops.map((s) => html`<li data-reason="${s.reason}">${s.n.toLocaleString('en')} ${STOP_REASONS[s.reason] ?? s.reason}</li>`)}
          </ul>`
        : ''
    }
    ${
      c.can('edit_content') && d.graph.startId !== null
        ? html`<form method="post" action="${base}/${verb}">
            ${csrfField(c.csrfToken)}<button type="submit" class="button">${state === 'active' ? 'Pause' : state === 'paused' ? 'Resume' : 'Start'}</button>
          </form>`
        : ''
    }
  </div>`;
}

/** The drip's steps as a table: what follows each one and its figures. */
function stepsTable(d: DripDiagram): SafeHtml {
  return scrollTable(
    'Steps with their figures',
    html`<table class="stack drip-steps">
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Then</th>
          <th scope="col">Here now</th>
          <th scope="col">Emails sent</th>
          <th scope="col">Completed</th>
        </tr>
      </thead>
      <tbody>
        ${[...d.graph.nodes.values()].map((n) => {
          const counts = d.counts.get(n.id)!;
          const b = d.graph.branches.get(n.id);
          const next = d.graph.next.get(n.id);
          const label = (id: string) => nodeLabel(d.graph.nodes.get(id)!, d);
          return html`<tr>
            <td data-label="Step">${nodeLabel(n, d)}</td>
            <td data-label="Then">
              ${b ? `yes: ${label(b.yes)}; no: ${label(b.no)}` : next ? label(next) : '—'}
            </td>
            <td data-label="Here now">${counts.enrolled}</td>
            <td data-label="Emails sent">${n.type === 'email' ? counts.emails : '—'}</td>
            <td data-label="Completed">${counts.completed}</td>
          </tr>`;
        })}
      </tbody>
    </table>`,
  );
}

/** Registers the start and pause actions of a drip. */
function registerDripActions(app: FastifyInstance, ctx: AppContext): void {
  for (const [verb, run] of [
    ['start', startDrip],
    ['pause', pauseDrip],
  ] as const)
    consoleAction(app, ctx, {
      path: `/console/campaigns/drips/:id/${verb}`,
      permission: 'edit_content',
      body: NoFields,
      handle: async (c) => {
        const drip = await requireDrip(ctx.database.db, c.account.customer_id, c.params.id!);
        await run(ctx, c.account.customer_id, drip.uuid);
        await audited(c, `drip.${verb}`, `drip:${drip.uuid}`);
        return {
          redirect: `/console/campaigns/drips/${seg(drip.uuid)}`,
          flash: verb === 'start' ? 'The drip is running.' : 'The drip is paused.',
        };
      },
    });
}
