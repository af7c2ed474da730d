/**
 * Audit entries for API routes, declared on the route: `config: { audit: { action, target } }`. Before a successful
 * (2xx) response to an authenticated request is sent, an entry is written with the API key's id as the actor; when
 * the write fails, the response is not sent (an audited read is never served unrecorded). `target` is a template whose
 * `{name}` placeholders come from `{account}` (the key's account), the path parameters, the query, then the JSON response's
 * top-level fields. A list read names the items it returned.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../db/connect.ts';
import { record } from './audit.service.ts';

/** What a route declares to be audited. */
export interface RouteAudit {
  action: string;
  /** `submission:{submission_id}`, `webhook:{id}`, `account:{account}` (the key's account id) ... */
  target: string;
  /** For a list: the response's array field and the id field of its items; their ids go into the entry (at most 1000). */
  items?: { field: string; id: string };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Write an audit entry for every successful response of this route. */
    audit?: RouteAudit;
    /**
     * Declares that the route returns protected content (bodies, submissions, exports): the audit action each
     * successful read writes (by `audit` here, the console page's `audit`, or the service it calls); `false` for a
     * route whose path looks like it but that returns none. `src/audit/protected-routes.test.ts` walks the router.
     */
    protectedContent?: string | false;
  }
}

function fill(template: string, sources: Record<string, unknown>[]): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    for (const s of sources)
      if (s[name] !== undefined && s[name] !== null && typeof s[name] !== 'object') return String(s[name]);
    return '?';
  });
}

function jsonFields(payload: unknown): Record<string, unknown> {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return {};
  try {
    return JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function detailOf(
  req: FastifyRequest,
  audit: RouteAudit,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const detail: Record<string, unknown> = { method: req.method, route: req.routeOptions.url };
  const list = audit.items ? body[audit.items.field] : undefined;
  if (audit.items && Array.isArray(list))
    detail.items = list.slice(0, 1000).map((x) => (x as Record<string, unknown>)[audit.items!.id]);
  const query = req.query as Record<string, unknown> | undefined;
  if (query && Object.keys(query).length > 0) detail.query = query;
  if (req.body && typeof req.body === 'object' && !Array.isArray(req.body))
    detail.fields = Object.keys(req.body as object);
  return detail;
}

/** Installs the hook on the root instance. */
export function registerRouteAudit(app: FastifyInstance, database: Database): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const audit = req.routeOptions.config?.audit;
    if (!audit || !req.principal || reply.statusCode >= 300) return payload;
    const params = (req.params ?? {}) as Record<string, unknown>;
    const query = (req.query ?? {}) as Record<string, unknown>;
    const body = jsonFields(payload);
    await record(database.db, {
      accountId: req.principal.customerId,
      actor: { type: 'key', id: req.principal.keyId },
      action: audit.action,
      target: fill(audit.target, [{ account: req.principal.customerId }, params, query, body]),
      ip: req.ip,
      detail: detailOf(req, audit, body),
    });
    return payload;
  });
}
