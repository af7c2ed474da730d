/**
 * Webhooks at `/console/webhooks`: the account's endpoints, adding one (its signing secret shown once), and one
 * endpoint's page: the events it receives, disabling and enabling, rotating the secret (the new one shown once; the old
 * one keeps signing until retired), sending a signed test event, the recent attempts (status, latency, response
 * excerpt) and replaying events.
 * Owners and admins change endpoints; everyone in the account may read. Every change is recorded in the audit trail by
 * the webhooks service, as from the API and the command line.
 */
import type { Static, TObject } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import {
  attemptsOf,
  changeEndpoint,
  createEndpoint,
  endpointOf,
  endpointsOf,
  type WebhookAttempt,
  type WebhookEndpoint,
} from '../webhooks/webhooks.service.ts';
import { replayEvents } from '../webhooks/webhooks.replay.ts';
import { sendTestEvent } from '../webhooks/test-event.ts';
import { WEBHOOK_EVENTS } from '../webhooks/events.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { csrfField, scrollTable } from './layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from './page.ts';
import { field, fields, when } from './format.ts';
import { Form, NoFields, Repeated, Text } from './action.schemas.ts';
import { revealLater, shownOncePage } from './shown-once.ts';

const EVENT_LABEL: Record<string, string> = {
  api_mail_log_delivered: 'Delivered',
  api_mail_log_opened: 'Opened',
  api_mail_log_temporary_failure: 'Deferred (temporary failure)',
  api_mail_log_permanent_failure: 'Bounced (permanent failure)',
  api_mail_log_suppressed: 'Not sent (suppressed address)',
  api_mail_log_complained: 'Spam complaint',
};

function eventBoxes(chosen: readonly string[]): SafeHtml {
  return html`<fieldset class="field">
    <legend>Events</legend>
    ${WEBHOOK_EVENTS.map(
      (e) =>
        html`<div class="check">
          <input type="checkbox" id="ev-${e}" name="events" value="${e}" ${chosen.includes(e) ? html`checked` : ''} />
          <label for="ev-${e}">${EVENT_LABEL[e]} <code>${e}</code></label>
        </div>`,
    )}
  </fieldset>`;
}

function state(e: WebhookEndpoint): string {
  if (e.disabled_at)
    return `disabled ${when(e.disabled_at)}${e.disabled_reason ? `: ${e.disabled_reason}` : ''}`;
  if (!e.active) return 'switched off';
  return e.failure_streak > 0 ? `active, ${e.failure_streak} failed attempts in a row` : 'active';
}

/** What the one-time page of a signing secret shows: the endpoint, the secret, and whether it replaced another. */
interface NewSecret {
  id: string;
  signing_key: string;
  rotated: boolean;
}

/** Stores an endpoint's new signing secret for its one-time page and returns that page's path. */
async function secretPage(c: ConsoleContext, e: WebhookEndpoint, rotated: boolean): Promise<string> {
  const shown: NewSecret = { id: e.id, signing_key: e.signing_key ?? '', rotated };
  return `/console/webhooks/${e.id}/secret/${await revealLater(c, 'webhook_secret', shown)}`;
}

function secretOnce(e: NewSecret): SafeHtml {
  const heading = e.rotated
    ? 'New signing secret (the previous one keeps signing until you retire it)'
    : 'Signing secret of the new endpoint';
  return html`<div class="card">
    <h2>${heading}</h2>
    <p class="flash flash-info">
      <strong>Copy this signing secret now. It is shown only this once.</strong> Your receiver checks each delivery's signature with it.
    </p>
    <p><code id="new-secret" class="mono">${e.signing_key}</code></p>
    <p><button type="button" data-copy="new-secret">Copy secret</button></p>
    <p><a href="/console/webhooks/${e.id}">Go to the endpoint</a></p>
  </div>`;
}

/** Registers the webhooks pages. */
export function webhookPages(app: FastifyInstance, ctx: AppContext): void {
  registerEndpointsPage(app, ctx);
  registerAddEndpoint(app, ctx);
  registerSecretPage(app, ctx);
  registerEndpointPage(app, ctx);
  registerEndpointChanges(app, ctx);
}

/** Registers the list of the account's endpoints, with the add form for `manage_settings`. */
function registerEndpointsPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/webhooks',
    permission: 'read',
    title: 'Webhooks',
    render: async (c) => {
      const list = await endpointsOf(c.ctx, c.account.customer_id);
      return html`<div class="card">
          ${
            list.length === 0
              ? html`<p>No endpoints yet. An endpoint receives delivery events as signed HTTP POSTs.</p>`
              : html`<ul>
                  ${list.map((e) => html`<li><a href="/console/webhooks/${e.id}">${e.target_url}</a> — ${state(e)}</li>`)}
                </ul>`
          }
        </div>
        ${
          c.can('manage_settings')
            ? html`<form class="card" method="post" action="/console/webhooks">
                <h2>Add an endpoint</h2>
                ${csrfField(c.csrfToken)}
                <div class="field">
                  <label for="wh-url">Target URL</label>
                  <input id="wh-url" name="target_url" type="url" required placeholder="https://" />
                </div>
                ${eventBoxes(['api_mail_log_delivered', 'api_mail_log_permanent_failure'])}
                <button type="submit" class="button">Add endpoint</button>
              </form>`
            : ''
        }`;
    },
  });
}

/** Registers the action that adds an endpoint and redirects to the one-time page with its signing secret. */
function registerAddEndpoint(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/webhooks',
    permission: 'manage_settings',
    body: Form({ target_url: Text(), events: Repeated() }),
    back: () => '/console/webhooks',
    handle: async (c) => {
      const e = await createEndpoint(
        c.ctx,
        c.account.customer_id,
        { target_url: field(c, 'target_url'), events: fields(c, 'events') },
        c.by,
      );
      return { redirect: await secretPage(c, e, false) };
    },
  });
}

/** Registers the page that shows a new signing secret the first time it is opened, and never again. */
function registerSecretPage(app: FastifyInstance, ctx: AppContext): void {
  shownOncePage<NewSecret>(app, ctx, {
    path: '/console/webhooks/:id/secret/:token',
    permission: 'manage_settings',
    title: 'Webhook signing secret',
    kind: 'webhook_secret',
    render: (_c, e) => secretOnce(e),
    spent: 'This signing secret was already shown; rotate the secret if you lost it.',
    expired:
      'This page has expired, so the signing secret cannot be shown; rotate the secret if you did not copy it.',
    back: (c) => ({
      href: `/console/webhooks/${encodeURIComponent(c.params.id ?? '')}`,
      label: 'Go to the endpoint',
    }),
  });
}

/** Registers one endpoint's page: its state and buttons, its events and replay forms, and the recent attempts. */
function registerEndpointPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/webhooks/:id',
    permission: 'read',
    title: 'Webhook endpoint',
    render: async (c) => {
      const e = await endpointOf(c.ctx, c.account.customer_id, c.params.id!);
      const attempts = await attemptsOf(c.ctx, c.account.customer_id, e.id, 25);
      return html`${endpointCard(c, e)} ${c.can('manage_settings') ? endpointForms(c, e) : ''}
        <div class="card">
          <h2>Recent attempts</h2>
          ${attempts.length === 0 ? html`<p>No attempts yet.</p>` : attemptsTable(attempts)}
        </div>
        <p><a href="/console/webhooks">All endpoints</a></p>`;
    },
  });
}

/** The endpoint's URL and state, with disable or enable, test, rotate and retire buttons for `manage_settings`. */
function endpointCard(c: ConsoleContext, e: WebhookEndpoint): SafeHtml {
  const post = (path: string, label: string, extra: SafeHtml = html``, cls = 'button') =>
    html`<form method="post" action="/console/webhooks/${e.id}/${path}" class="inline">
      ${csrfField(c.csrfToken)}${extra}<button type="submit" class="${cls}">${label}</button>
    </form>`;
  return html`<div class="card">
    <h2>${e.target_url}</h2>
    <p>State: ${state(e)}. Added ${when(e.created_at)}.</p>
    ${e.previous_signing_key_active ? html`<p>The previous signing secret still signs beside the new one.</p>` : ''}
    ${
      c.can('manage_settings')
        ? html`<div class="actions">
            ${
              e.active && !e.disabled_at
                ? post('active', 'Disable', html`<input type="hidden" name="active" value="0" />`, 'danger')
                : post('active', 'Enable', html`<input type="hidden" name="active" value="1" />`)
            }
            ${e.active && !e.disabled_at ? post('test', 'Send test event', html``, 'button secondary') : ''}
            ${post('rotate', 'Rotate signing secret', html``, 'button secondary')}
            ${e.previous_signing_key_active ? post('retire', 'Retire previous secret', html``, 'button secondary') : ''}
          </div>`
        : ''
    }
  </div>`;
}

/** The forms that choose the endpoint's events and replay events by id. */
function endpointForms(c: ConsoleContext, e: WebhookEndpoint): SafeHtml {
  return html`<form class="card" method="post" action="/console/webhooks/${e.id}/events">
      ${csrfField(c.csrfToken)} ${eventBoxes(e.events)}
      <button type="submit" class="button">Save events</button>
    </form>
    <form class="card" method="post" action="/console/webhooks/${e.id}/replay">
      <h2>Replay events</h2>
      ${csrfField(c.csrfToken)}
      <div class="field">
        <label for="rp-ids">Event ids</label>
        <input id="rp-ids" name="event_ids" inputmode="numeric" aria-describedby="rp-hint" />
        <p class="hint" id="rp-hint">One or more event ids (from the attempts below), separated by commas.</p>
      </div>
      <button type="submit" class="button">Replay</button>
    </form>`;
}

/** The table of recent delivery attempts: when, event, status, latency and response excerpt. */
function attemptsTable(attempts: WebhookAttempt[]): SafeHtml {
  return scrollTable(
    'Recent attempts',
    html`
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Latency</th>
            <th scope="col">Response</th>
          </tr>
        </thead>
        <tbody>
          ${attempts.map(
            (a) =>
              html`<tr>
                <td data-label="When">${when(a.created_at)}</td>
                <td data-label="Event">${a.event_id} · ${a.event_name}<br /><span class="muted">attempt ${a.attempt}</span></td>
                <td data-label="Status">${a.status_code ?? 'no answer'}</td>
                <td data-label="Latency">${a.latency_ms} ms</td>
                <td data-label="Response"><code class="mono">${(a.response_excerpt ?? a.error ?? '').slice(0, 200)}</code></td>
              </tr>`,
          )}
        </tbody>
      </table>`,
  );
}

/** What a change to an endpoint answers: a page to go to (`redirect`), or a flash on the endpoint's page. */
interface ChangeResult {
  redirect?: string;
  flash: string;
  kind?: 'success' | 'error';
}

/** Registers one change to an endpoint at `/console/webhooks/:id/<path>` for `manage_settings`. */
function endpointChange<B extends TObject>(
  app: FastifyInstance,
  ctx: AppContext,
  path: string,
  body: B,
  handle: (c: ConsoleContext<Static<B>>, id: string) => Promise<ChangeResult>,
): void {
  consoleAction(app, ctx, {
    path: `/console/webhooks/:id/${path}`,
    permission: 'manage_settings',
    body,
    back: (c) => `/console/webhooks/${encodeURIComponent(c.params.id ?? '')}`,
    handle: async (c) => {
      const id = c.params.id!;
      const r = await handle(c, id);
      return r.redirect
        ? { redirect: r.redirect }
        : { redirect: `/console/webhooks/${id}`, flash: { kind: r.kind ?? 'success', text: r.flash } };
    },
  });
}

/** Registers the changes to an endpoint: events, on or off, rotate and retire the secret, test event, replay. */
function registerEndpointChanges(app: FastifyInstance, ctx: AppContext): void {
  endpointChange(app, ctx, 'events', Form({ events: Repeated() }), async (c, id) => {
    await changeEndpoint(c.ctx, c.account.customer_id, id, { events: fields(c, 'events') }, c.by);
    return { flash: 'The events are saved.' };
  });
  endpointChange(app, ctx, 'active', Form({ active: Text() }), async (c, id) => {
    const active = field(c, 'active') === '1';
    await changeEndpoint(c.ctx, c.account.customer_id, id, { active }, c.by);
    return {
      flash: active ? 'The endpoint is enabled.' : 'The endpoint is disabled: no deliveries are sent to it.',
    };
  });
  endpointChange(app, ctx, 'rotate', NoFields, async (c, id) => {
    const e = await changeEndpoint(c.ctx, c.account.customer_id, id, { rotate_signing_key: true }, c.by);
    return { flash: '', redirect: await secretPage(c, e, true) };
  });
  endpointChange(app, ctx, 'retire', NoFields, async (c, id) => {
    await changeEndpoint(c.ctx, c.account.customer_id, id, { retire_previous_signing_key: true }, c.by);
    return { flash: 'The previous secret no longer signs.' };
  });
  endpointChange(app, ctx, 'test', NoFields, async (c, id) => {
    const a = await sendTestEvent(c.ctx, c.account.customer_id, id, c.by);
    const answered =
      a.status_code === null ? (a.error ?? 'no answer') : `the endpoint answered ${a.status_code}`;
    const ok = a.status_code !== null && a.status_code >= 200 && a.status_code < 300;
    return {
      flash: ok
        ? `Test event ${a.event_id} delivered: ${answered} in ${a.latency_ms} ms.`
        : `Test event ${a.event_id} failed: ${answered} after ${a.latency_ms} ms. It is not retried.`,
      kind: ok ? 'success' : 'error',
    };
  });
  endpointChange(app, ctx, 'replay', Form({ event_ids: Text() }), async (c, id) => {
    const ids = field(c, 'event_ids')
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number);
    const r = await replayEvents(c.ctx, c.account.customer_id, id, { event_ids: ids }, c.by);
    return {
      flash: `${r.replayed} event${r.replayed === 1 ? '' : 's'} put back in line; ${r.already_pending} already pending.`,
    };
  });
}
