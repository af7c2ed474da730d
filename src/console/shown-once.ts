/**
 * Pages that show a secret once (a new API key, a webhook signing secret). The action that makes the secret stores it
 * with `revealLater` and redirects to the page it names (post/redirect/get, so a reload makes nothing twice);
 * `shownOncePage` registers that page, which shows the secret to the same session the first time only. A reload, the
 * back button or a second visit gets `spent` instead, and never the value.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import type { Capability } from '../users/capabilities.ts';
import { createReveal, takeReveal } from '../users/reveals.service.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { consolePage, type ConsoleContext } from './page.ts';

/** Stores `value` for one showing to this session; returns the token to put in the page's path. */
export async function revealLater(c: ConsoleContext, kind: string, value: unknown): Promise<string> {
  return createReveal(c.ctx.database.db, c.ctx.sealer, c.session.id, kind, value);
}

/** A one-time page: its path (with `:token`), what it shows the first time, and what it says afterwards. */
export interface ShownOnceSpec<T> {
  path: string;
  permission: Capability;
  title: string;
  kind: string;
  /** The page with the secret, the first time. */
  render(c: ConsoleContext, value: T): Promise<SafeHtml> | SafeHtml;
  /** The sentence shown instead afterwards, for example "This key was already shown; create a new one if you lost it." */
  spent: string;
  /** The sentence shown when the page was never opened in time, or belongs to another session. */
  expired: string;
  /** Where to go from the spent page: a path and its link text. */
  back(c: ConsoleContext): { href: string; label: string };
}

/** Registers a page that shows a secret once (see the header). */
export function shownOncePage<T>(app: FastifyInstance, ctx: AppContext, spec: ShownOnceSpec<T>): void {
  consolePage(app, ctx, {
    path: spec.path,
    permission: spec.permission,
    title: spec.title,
    render: async (c) => {
      const r = await takeReveal<T>(
        c.ctx.database.db,
        c.ctx.sealer,
        c.session.id,
        spec.kind,
        c.params.token!,
      );
      if (r.state === 'fresh') return spec.render(c, r.value);
      const back = spec.back(c);
      const why = r.state === 'shown' ? spec.spent : spec.expired;
      return {
        title: spec.title,
        status: 410,
        body: html`<div class="card" role="region" aria-labelledby="spent-heading">
          <h2 id="spent-heading">Shown only once</h2>
          <p class="flash flash-info" role="status">${why}</p>
          <p>For safety, Sealpost shows a secret a single time, right after it is made, and keeps no copy it could show again.</p>
          <p><a class="button secondary" href="${back.href}">${back.label}</a></p>
        </div>`,
      };
    },
  });
}
