/**
 * How the audit trail names who acted and what on: a user by email (linked to the users page), a form by its title, a
 * response and a message linked to their pages. Whatever cannot be found (a deleted form, another kind of target) is
 * shown as recorded.
 */
import type { AuditView } from '../audit/audit.service.ts';
import { findFormOf } from '../forms/definitions/forms.service.ts';
import { usersOf } from '../users/users.service.ts';
import { html, type SafeHtml } from '../http/html.ts';
import type { ConsoleContext } from './page.ts';

/** A name, and where it links to when there is a page for it. */
export interface Named {
  text: string;
  href?: string;
}

/** The names of the entries on one page of the trail. */
export interface AuditNames {
  actor(e: AuditView): Named;
  target(e: AuditView): Named;
}

/** The form id an entry is about: its target, or the form of a response. */
function formIdOf(e: AuditView): string | undefined {
  if (e.target.startsWith('form:')) return e.target.slice(5);
  return typeof e.detail.form_id === 'string' ? e.detail.form_id : undefined;
}

/** Looks up the users and forms the entries name, once each. */
export async function auditNames(c: ConsoleContext, entries: AuditView[]): Promise<AuditNames> {
  const reader = c.ctx.database.reader;
  const customerId = c.account.customer_id;
  const emails = new Map((await usersOf(reader, customerId)).map((u) => [u.id, u.email]));
  const formIds = [...new Set(entries.map(formIdOf).filter((id): id is string => id !== undefined))];
  const titles = new Map<string, string>();
  for (const id of formIds) {
    const form = await findFormOf(reader, customerId, id);
    if (form) titles.set(id, form.title || `form ${form.number}`);
  }
  const user = (id: string): Named | undefined => {
    const email = emails.get(id);
    return email ? { text: email, href: `/console/settings/users#user-${id}` } : undefined;
  };
  return {
    actor: (e) => {
      if (e.actor_type === 'user') return user(e.actor_id) ?? { text: `user ${e.actor_id}` };
      if (e.actor_type === 'key') return { text: `API key ${e.actor_id}` };
      if (e.actor_type === 'recipient') return { text: `recipient ${e.actor_id}` };
      return { text: e.actor_id === 'cli' ? 'command line' : `Sealpost (${e.actor_id})` };
    },
    target: (e) => {
      const [kind, id = ''] = splitTarget(e.target);
      const formId = formIdOf(e);
      const title = formId === undefined ? undefined : titles.get(formId);
      if (kind === 'user') {
        const named = user(id);
        return named ? { ...named, text: `user ${named.text}` } : { text: e.target };
      }
      if (kind === 'form' && title) return { text: `form ${title}`, href: `/console/forms/${id}` };
      if ((kind === 'form_submission' || kind === 'submission') && formId)
        return {
          text: title ? `a response to ${title}` : `response ${id}`,
          href: `/console/forms/${formId}/responses/${id}`,
        };
      if (kind === 'message')
        return { text: `message ${id}`, href: `/console/messages/${encodeURIComponent(id)}` };
      return { text: e.target };
    },
  };
}

function splitTarget(target: string): [string, string | undefined] {
  const colon = target.indexOf(':');
  return colon < 0 ? [target, undefined] : [target.slice(0, colon), target.slice(colon + 1)];
}

/** A name as a link when it has a page; the recorded target in the title, for who wants the id. */
export function namedCell(named: Named, recorded?: string): SafeHtml {
  return named.href
    ? html`<a href="${named.href}" title="${recorded ?? ''}">${named.text}</a>`
    : html`${named.text}`;
}
