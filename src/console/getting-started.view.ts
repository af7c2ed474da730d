/**
 * The overview's getting-started checklist: verify a domain, create an API key, send a test, publish a form, import a
 * list. Each step's state comes from the account's data, each links to the page that does it, and the list is gone
 * once every step is done (docs/decisions.md).
 */
import type { FirstStep } from '../accounts/getting-started.service.ts';
import { html, type SafeHtml } from '../http/html.ts';

const STEPS: { step: FirstStep; label: string; href: string; how: string }[] = [
  {
    step: 'domain',
    label: 'Verify a sending domain',
    href: '/console/domains',
    how: 'Add the DNS records shown for your domain, then check them.',
  },
  {
    step: 'key',
    label: 'Create an API key',
    href: '/console/keys',
    how: 'Your systems send with it through the API or SMTP.',
  },
  {
    step: 'test',
    label: 'Send a test',
    href: '/console/campaigns',
    how: "A mailing's test email, or any message through the API or SMTP.",
  },
  {
    step: 'form',
    label: 'Publish a form',
    href: '/console/forms',
    how: 'Build a form and publish it to accept responses on its page.',
  },
  {
    step: 'import',
    label: 'Import a list',
    href: '/console/audiences/imports',
    how: 'Upload a CSV file of subscribers into a list.',
  },
];

/** The checklist, or nothing once every step is done. */
export function gettingStarted(done: Record<FirstStep, boolean>): SafeHtml {
  const count = STEPS.filter((s) => done[s.step]).length;
  if (count === STEPS.length) return html``;
  return html`<section class="card getting-started" aria-labelledby="getting-started">
    <h2 id="getting-started">Getting started</h2>
    <p class="muted">${count} of ${STEPS.length} done. This list goes away once every step is done.</p>
    <ol class="checklist">
      ${STEPS.map(
        (s) =>
          html`<li class="${done[s.step] ? 'done' : 'todo'}" data-step="${s.step}">
            <span class="check" aria-hidden="true">${done[s.step] ? '✓' : ''}</span>
            <span>
              <a href="${s.href}">${s.label}</a>
              <strong class="state">${done[s.step] ? 'Done' : 'To do'}</strong>
              <span class="muted how">${s.how}</span>
            </span>
          </li>`,
      )}
    </ol>
  </section>`;
}
