/**
 * A send at `/console/campaigns/sends/:id`: its state and live counters (expanded, sent, delivered, bounced, opened,
 * clicked, per second), refreshed every second by progress.js from `…/progress.json` without reloading; pause, resume and cancel.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { cancelSend, pauseSend, requireSend, resumeSend } from '../../marketing/campaigns/sends.service.ts';
import { sendViewOf } from '../../marketing/campaigns/send-view.ts';
import type { SendRow } from '../../marketing/campaigns/sends.repository.ts';
import { assetUrl } from '../assets.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { deliveredLabel } from '../format.ts';
import { consoleAction, consolePage, guard } from '../page.ts';
import { audited, seg } from '../audiences/audit.ts';
import { sendAnalytics } from '../../marketing/analytics/timeline.service.ts';
import { analyticsSection } from './analytics.view.ts';
import { NoFields } from '../action.schemas.ts';

const FLASH = {
  pause: 'The send is paused.',
  resume: 'The send resumed.',
  cancel: 'The send is cancelled: no more emails go out.',
};

const LIVE = ['scheduled', 'expanding', 'sending', 'paused'];

/** The live figures of a send. */
export function sendProgress(s: SendRow, now = Date.now()) {
  const sent = Number(s.sent_count);
  const started = s.sent_at === null ? null : Number(s.sent_at);
  const end = s.finished_at === null ? now : Number(s.finished_at);
  const seconds = started === null ? 0 : Math.max(1, (end - started) / 1000);
  return {
    state: s.state,
    expanded: Number(s.audience_count),
    sent,
    delivered: Number(s.delivered_count),
    bounced: Number(s.bounced_count),
    opened: Number(s.viewed_count),
    clicked: Number(s.clicked_count),
    per_second: seconds ? Math.round((sent / seconds) * 10) / 10 : 0,
    finished: !LIVE.includes(s.state),
  };
}

/** Registers the send page, its progress endpoint and its actions. */
export function sendPages(app: FastifyInstance, ctx: AppContext): void {
  registerSendPage(app, ctx);
  registerProgressEndpoint(app, ctx);
  registerSendActions(app, ctx);
}

type Progress = ReturnType<typeof sendProgress>;

/** Registers a send's page: live progress, the pause, resume and cancel buttons, and its analytics. */
function registerSendPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/campaigns/sends/:id',
    permission: 'read',
    title: 'Send',
    render: async (c) => {
      const s = await requireSend(ctx.database.reader, c.account.customer_id, c.params.id!);
      const mailingId = (await sendViewOf(ctx.database.reader, s)).attributes.campaign_mailing_id;
      const p = sendProgress(s);
      const base = `/console/campaigns/sends/${seg(s.uuid)}`;
      const analytics = await sendAnalytics(ctx, c.account.customer_id, s.uuid);
      return {
        title: `Send to ${s.subscription_list_name}`,
        body: html`<p><a href="/console/campaigns/mailings/${seg(mailingId)}">← The mailing</a></p>
          ${progressCard(s, p, base, deliveredLabel(ctx))}
          ${
            c.can('edit_content') &&
            (p.state === 'expanding' || p.state === 'sending' || p.state === 'paused')
              ? html`<div class="card">
                  <form class="inline" method="post" action="${base}/${p.state === 'paused' ? 'resume' : 'pause'}">
                    ${csrfField(c.csrfToken)}<button type="submit" class="button">${p.state === 'paused' ? 'Resume' : 'Pause'}</button>
                  </form>
                  <form class="inline" method="post" action="${base}/cancel">
                    ${csrfField(c.csrfToken)}<button type="submit" class="danger">Cancel the send</button>
                  </form>
                  <p class="muted">Cancelling stops every email not sent yet; it cannot be undone.</p>
                </div>`
              : ''
          }
          ${analyticsSection(analytics, base, deliveredLabel(ctx))}`,
      };
    },
  });
}

/** The send's state and counters; while it runs, polled every second by progress.js. */
function progressCard(s: SendRow, p: Progress, base: string, delivered: { label: string }): SafeHtml {
  const live = !p.finished && p.state !== 'scheduled';
  return html`<div class="card" ${live ? html`data-poll="${base}/progress.json"` : ''}>
    <h2>Progress</h2>
    <p>
      State:
      <strong data-field="state">${p.state}</strong
      >${p.state === 'scheduled' ? html` for ${new Date(Number(s.send_at)).toISOString().slice(0, 16).replace('T', ' ')} UTC` : ''}
    </p>
    <dl class="stats">
      <div>
        <dt>Expanded</dt>
        <dd data-field="expanded">${p.expanded.toLocaleString('en')}</dd>
      </div>
      <div>
        <dt>Sent</dt>
        <dd data-field="sent">${p.sent.toLocaleString('en')}</dd>
      </div>
      <div>
        <dt>${delivered.label}</dt>
        <dd data-field="delivered">${p.delivered.toLocaleString('en')}</dd>
      </div>
      <div>
        <dt>Bounced</dt>
        <dd data-field="bounced">${p.bounced.toLocaleString('en')}</dd>
      </div>
      <div>
        <dt>Opened</dt>
        <dd data-field="opened">${p.opened.toLocaleString('en')}</dd>
      </div>
      <div>
        <dt>Clicked</dt>
        <dd data-field="clicked">${p.clicked.toLocaleString('en')}</dd>
      </div>
      <div>
        <dt>Per second</dt>
        <dd data-field="per_second">${p.per_second}</dd>
      </div>
    </dl>
    ${live ? html`<script src="${assetUrl('progress.js')}" defer></script>` : ''}
  </div>`;
}

/** Registers the JSON of a send's live figures that its page polls. */
function registerProgressEndpoint(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { id: string } }>(
    '/console/campaigns/sends/:id/progress.json',
    { schema: { hide: true } },
    async (req, reply) => {
      const c = await guard(ctx, req, reply, 'read');
      if (!c) return reply;
      const s = await requireSend(ctx.database.reader, c.account.customer_id, req.params.id);
      return reply.header('cache-control', 'no-store').send(sendProgress(s));
    },
  );
}

/** Registers the pause, resume and cancel actions of a send. */
function registerSendActions(app: FastifyInstance, ctx: AppContext): void {
  for (const [verb, run] of [
    ['pause', pauseSend],
    ['resume', resumeSend],
    ['cancel', cancelSend],
  ] as const)
    consoleAction(app, ctx, {
      path: `/console/campaigns/sends/:id/${verb}`,
      permission: 'edit_content',
      body: NoFields,
      handle: async (c) => {
        const s = await run(ctx, c.account.customer_id, c.params.id!);
        await audited(c, `send.${verb}`, `send:${s.uuid}`);
        return {
          redirect: `/console/campaigns/sends/${seg(s.uuid)}`,
          flash: FLASH[verb],
        };
      },
    });
}
