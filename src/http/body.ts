/**
 * Body-parsing rules that real clients need: bodies on GET/HEAD/DELETE are ignored whatever their content type; an
 * empty JSON body is no body; optional fields sent as null, "", [] or {} are treated as absent before validation.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

const IGNORED_TYPE = 'application/x-sealpost-ignored-body';
const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Body keys whose values are kept verbatim by the absent-value rule (free-form JSON such as a form definition). */
    verbatimBodyKeys?: readonly string[];
    /** A DELETE route that reads a JSON body (a bulk delete whose ids clients send in the body); other bodies stay ignored. */
    jsonBodyOnDelete?: boolean;
  }
}

/** True for a value a client sends to mean "not given". */
function isAbsent(v: unknown): boolean {
  if (v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && v !== null && Object.keys(v).length === 0 && Object.getPrototypeOf(v) === Object.prototype;
}

/** Removes values sent as absent from objects, recursively (array elements are cleaned but kept; an object emptied by cleaning stays, so a missing required field inside it is reported by name). Keys in `verbatim` are left as sent. */
export function dropAbsent(value: unknown, verbatim: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(value)) return value.map((v) => dropAbsent(v, verbatim));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (verbatim.has(k)) {
      out[k] = v;
      continue;
    }
    if (!isAbsent(v)) out[k] = dropAbsent(v, verbatim);
  }
  return out;
}

/** True for a DELETE with a JSON body on a route that reads it. */
function keepsJsonBody(req: FastifyRequest): boolean {
  return (
    req.method === 'DELETE' &&
    req.routeOptions.config?.jsonBodyOnDelete === true &&
    /^application\/json\b/i.test(req.headers['content-type'] ?? '')
  );
}

/** Installs the parsing rules on the root instance. */
export function registerBodyRules(app: FastifyInstance): void {
  app.addHook('onRequest', async (req: FastifyRequest) => {
    if (BODYLESS.has(req.method) && req.headers['content-type'] && !keepsJsonBody(req)) req.headers['content-type'] = IGNORED_TYPE;
  });
  app.addContentTypeParser(IGNORED_TYPE, (_req, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null, undefined));
    payload.on('error', (err) => done(err, undefined));
  });

  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    defaultJson(req, text, done);
  });

  app.addHook('preValidation', async (req) => {
    if (req.body && typeof req.body === 'object') {
      req.body = dropAbsent(req.body, new Set(req.routeOptions.config?.verbatimBodyKeys ?? []));
    }
  });
}
