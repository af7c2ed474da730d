/** The console's page frame: the document head, the top bar with the account and sign-out, the navigation, flash notices. */
import { html, type SafeHtml } from '../http/html.ts';
import { assetUrl } from './assets.ts';
import type { Flash } from '../users/sessions.service.ts';
import type { Capability } from '../users/capabilities.ts';

/** One entry of the navigation: its label, path, and the capability needed to see it. */
export interface NavItem {
  label: string;
  path: string;
  capability: Capability;
}

/** The navigation, in order. Pages register under these paths. */
export const NAV: readonly NavItem[] = [
  { label: 'Overview', path: '/console', capability: 'read' },
  { label: 'Domains', path: '/console/domains', capability: 'read' },
  { label: 'API keys', path: '/console/keys', capability: 'read' },
  { label: 'Webhooks', path: '/console/webhooks', capability: 'read' },
  { label: 'Messages', path: '/console/messages', capability: 'read' },
  { label: 'Captured mail', path: '/console/captured', capability: 'read' },
  { label: 'Templates', path: '/console/templates', capability: 'read' },
  { label: 'Forms', path: '/console/forms', capability: 'read' },
  { label: 'Audiences', path: '/console/audiences', capability: 'read' },
  { label: 'Campaigns', path: '/console/campaigns', capability: 'read' },
  { label: 'Settings', path: '/console/settings', capability: 'read' },
];

/** What the frame shows around a page's content. */
export interface Frame {
  title: string;
  /** The nav path to mark as current (defaults to the longest nav path the request path starts with). */
  currentPath: string;
  accountName: string;
  userEmail: string;
  /** For an installation operator: the account switcher, and whether another account than their own is shown. */
  operator?: { viewingOther: boolean; ownAccountId: number };
  csrfToken: string;
  flash?: Flash;
  /** Nav entries the user may see. */
  nav: readonly NavItem[];
  /** The installation keeps mail instead of sending it (the capture transport). */
  capture?: boolean;
  /** The session's idle timeout: console.js offers to stay signed in a minute before it ends. */
  idleSeconds?: number;
}

function head(title: string): SafeHtml {
  return html`<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width,initial-scale=1" />
    <meta name="robots" content="noindex" />
    <title>${title} · Sealpost</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${assetUrl('console.css')}" />
    <script src="${assetUrl('console.js')}" defer></script>
  </head>`;
}

/** A message as a sentence: a capital first letter and a full stop (service messages are written in lower case). */
export function sentence(text: string): string {
  const t = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/** A flash notice, announced to screen readers. */
export function flashBox(flash: Flash | undefined): SafeHtml {
  if (!flash) return html``;
  return html`<div class="flash flash-${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">${sentence(flash.text)}</div>`;
}

/** The hidden form field carrying the session's CSRF token; every console form that posts includes it. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}" />`;
}

function current(nav: readonly NavItem[], path: string): string {
  const matches = nav.filter(
    (n) => path === n.path || (n.path !== '/console' && path.startsWith(`${n.path}/`)),
  );
  return (
    matches.sort((a, b) => b.path.length - a.path.length)[0]?.path ?? (path === '/console' ? '/console' : '')
  );
}

function navList(nav: readonly NavItem[], here: string): SafeHtml {
  return html`<ul>
    ${nav.map((n) => html`<li><a href="${n.path}" ${n.path === here ? html`aria-current="page"` : ''}>${n.label}</a></li>`)}
  </ul>`;
}

/** The band an operator sees while looking at another account: which one, that it is read only, and the way back. */
/** Said on every page while mail is captured: "delivered" then means kept here, not received by anyone. */
const CAPTURE_BANNER = html`<div class="banner-capture" role="region" aria-label="Capture mode">
  <p>
    <strong>Capture mode:</strong> mail is kept in <a href="/console/captured">Captured mail</a> and not sent to anyone.
    Set <code>SEALPOST_TRANSPORT</code> to <code>relay</code> or <code>mx</code> to deliver it.
  </p>
</div>`;

function viewingBanner(frame: Frame): SafeHtml {
  return html`<div class="viewing" role="region" aria-label="Account being viewed">
    <p>
      You are viewing the account <strong>${frame.accountName}</strong> as the installation operator. Read only: changes
      and protected content are refused.
    </p>
    <form method="post" action="/console/accounts/switch">
      ${csrfField(frame.csrfToken)}<input type="hidden" name="account" value="${String(frame.operator!.ownAccountId)}" />
      <button type="submit">Back to my account</button>
    </form>
  </div>`;
}

/** A whole signed-in page: the frame around `body`. */
export function layout(frame: Frame, body: SafeHtml): string {
  const here = current(frame.nav, frame.currentPath);
  return `<!doctype html>${html`<html lang="en">
    ${head(frame.title)}
    <body data-idle-seconds="${String(frame.idleSeconds ?? '')}">
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <a class="brand" href="/console">Sealpost</a>
        <div class="who">
          <span>Account <strong>${frame.accountName}</strong> · ${frame.userEmail}</span>
          ${frame.operator ? html`<a class="switch" href="/console/accounts">Switch account</a>` : ''}
          <a class="switch" href="/docs/guide">Guides</a>
          <form method="post" action="/console/sign-out">${csrfField(frame.csrfToken)}<button type="submit">Sign out</button></form>
        </div>
      </header>
      ${frame.operator?.viewingOther ? viewingBanner(frame) : ''} ${frame.capture ? CAPTURE_BANNER : ''}
      <div class="shell">
        <details class="nav-phone">
          <summary>Menu<span class="nav-here">${frame.nav.find((n) => n.path === here)?.label ?? ''}</span></summary>
          ${navList(frame.nav, here)}
        </details>
        <nav class="nav" aria-label="Console">${navList(frame.nav, here)}</nav>
        <main id="main" tabindex="-1">
          <h1>${frame.title}</h1>
          ${flashBox(frame.flash)} ${body}
        </main>
      </div>
    </body>
  </html>`}`;
}

/** A page outside the frame (sign-in, set password, errors for people not signed in): one narrow column. */
export function plainPage(title: string, body: SafeHtml, flash?: Flash): string {
  return `<!doctype html>${html`<html lang="en">
    ${head(title)}
    <body>
      <main id="main" class="narrow">
        <p class="brand-line"><strong>Sealpost</strong></p>
        <h1>${title}</h1>
        ${flashBox(flash)} ${body}
      </main>
    </body>
  </html>`}`;
}

/** A table that scrolls sideways on a narrow screen, reachable by keyboard and named for screen readers. */
export function scrollTable(label: string, table: SafeHtml): SafeHtml {
  return html`<div class="table-wrap" role="region" aria-label="${label}" tabindex="0">${table}</div>`;
}
