/**
 * What the access log may say about a request. URLs carry credentials (secure-page, tracking and unsubscribe tokens,
 * signed links) and personal data (addresses in query strings), so the log never gets a raw URL: it gets the matched
 * route with its parameters filled in, except those that are secrets or hold an address, and never a query string.
 * A route whose path carries a credential names its parameter after one of SECRET_PARAMS (`:token`, `:key`, ...).
 */
import type { FastifyRequest } from 'fastify';

/** Path parameter names whose values are credentials and are never logged. */
export const SECRET_PARAMS = /token|key|secret|password|signature|code|session|otp/i;

const REDACTED = '[redacted]';

/** A path segment that looks like a credential or holds an address, for paths no route matched. */
function sensitiveSegment(segment: string): boolean {
  const decoded = safeDecode(segment);
  return (
    decoded.includes('@') ||
    (segment.length >= 20 && /^[A-Za-z0-9_.~%+=-]+$/.test(segment) && /\d/.test(segment))
  );
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The request's URL as the log may show it: route parameters filled in unless secret, no query string. */
export function loggableUrl(url: string, route?: string, params?: Record<string, unknown>): string {
  const q = url.indexOf('?');
  const query = q >= 0 ? `?${REDACTED}` : '';
  const path = q >= 0 ? url.slice(0, q) : url;
  if (!route || !params)
    return (
      path
        .split('/')
        .map((s) => (sensitiveSegment(s) ? REDACTED : s))
        .join('/') + query
    );
  const filled = route.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) return `:${name}`;
    const text = String(value);
    return SECRET_PARAMS.test(name) || text.includes('@') ? REDACTED : encodeURIComponent(text);
  });
  return filled.replace(/\*$/, () => REDACTED) + query;
}

/** The `req` serializer of the HTTP log: method, redacted URL and client address, nothing else. */
export function loggableRequest(req: FastifyRequest): Record<string, unknown> {
  const route = req.routeOptions?.url;
  return {
    method: req.method,
    url: loggableUrl(req.url ?? '', route, req.params as Record<string, unknown> | undefined),
    remoteAddress: req.ip,
  };
}
