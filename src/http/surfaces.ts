/**
 * Which API surface a request path belongs to, decided from the path alone before any route matches, so that
 * authentication answers 401 for a bad key even on a path or method that does not exist.
 */
import { EMAIL_OPS, MARKETING_OPS } from '../accounts/reserved.ts';
import type { Scope } from '../accounts/keys.service.ts';

/** The access rule of a request: public, or a scope and possibly the account named in the path. */
export type Surface = { kind: 'public' } | { kind: 'api'; scope: Scope; username?: string };

const PUBLIC: Surface = { kind: 'public' };
const emailOps = new Set<string>(EMAIL_OPS);
const marketingOps = new Set<string>(MARKETING_OPS);

/** Classifies a request by method and path (query string ignored). */
export function classify(method: string, url: string): Surface {
  const path = url.split('?', 1)[0] ?? '';
  const seg = path
    .split('/')
    .filter(Boolean)
    .map((s) => decodeSegment(s));
  if (seg[0] === 'forms') return formsSurface(method, seg.slice(1));
  if (seg[0] !== 'v1') return PUBLIC;
  const second = seg[1]?.toLowerCase();
  // Only forms paths (`/v1/forms/api/...`, `/v1/forms/public/...`) are forms; `/v1/forms/<op>` would name an account "forms".
  if (second === 'forms' && (seg[2] === 'api' || seg[2] === 'public'))
    return formsSurface(method, seg.slice(2));
  if (second === 'marketing') {
    // The second segment names an account only when a known operation follows it: anything else under
    // `/v1/marketing` (`/<unknown>`, `/<unknown>/<more>`, `/<username>/<unknown>/<more>`) is an unknown
    // operation of the key's own account, so 404 after authentication, never 403.
    const third = seg[2]?.toLowerCase();
    const fourth = seg[3]?.toLowerCase();
    const named =
      third !== undefined && !marketingOps.has(third) && fourth !== undefined && marketingOps.has(fourth);
    return named ? { kind: 'api', scope: 'marketing', username: third } : { kind: 'api', scope: 'marketing' };
  }
  if (method === 'GET' && isStatusPath(seg)) return PUBLIC;
  if (second === undefined || second === 'email' || emailOps.has(second))
    return { kind: 'api', scope: 'email' };
  return { kind: 'api', scope: 'email', username: second };
}

/** `/v1/status` and `/v1/<username>/status` (also `/v1/email/status`): the service's status, asked without a key. */
function isStatusPath(seg: string[]): boolean {
  if (seg.length === 2) return seg[1] === 'status';
  // `/v1/dynamic_templates/status` names a template, not an account: only the status op itself is public.
  return seg.length === 3 && seg[2] === 'status' && !emailOps.has(seg[1]!.toLowerCase());
}

/** Forms paths after the `forms` segment: the public form read and public submission need no key. */
function formsSurface(method: string, rest: string[]): Surface {
  if (method === 'GET' && rest[0] === 'public' && rest[1] === 'form_data') return PUBLIC;
  if (
    method === 'POST' &&
    rest[0] === 'api' &&
    rest[1] === 'forms' &&
    rest.length === 4 &&
    rest[3] === 'submissions'
  )
    return PUBLIC;
  return { kind: 'api', scope: 'forms' };
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
