/**
 * Body-parsing rules that real clients need: bodies on GET/HEAD/DELETE are ignored whatever their content type; an
 * empty JSON body is no body; optional fields sent as null, "", [] or {} are treated as absent before validation.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';

const IGNORED_TYPE = 'application/x-sealpost-ignored-body';
/** Deepest nesting of arrays and objects a JSON body may have; deeper bodies are refused before parsing. */
export const MAX_JSON_DEPTH = 64;
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
  return (
    typeof v === 'object' &&
    v !== null &&
    Object.keys(v).length === 0 &&
    Object.getPrototypeOf(v) === Object.prototype
  );
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

/** The deepest nesting of arrays and objects in JSON text, counted without parsing (brackets inside strings do not count). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** True for a multipart content type that names no boundary, which no parser can split. */
function multipartWithoutBoundary(contentType: string | undefined): boolean {
  return (
    /^\s*multipart\//i.test(contentType ?? '') && !/;\s*boundary\s*=\s*"?[^";\s]+/i.test(contentType ?? '')
  );
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
    if (BODYLESS.has(req.method) && req.headers['content-type'] && !keepsJsonBody(req))
      req.headers['content-type'] = IGNORED_TYPE;
    else if (multipartWithoutBoundary(req.headers['content-type']))
      throw new AppError(
        'request.invalid',
        'multipart body without a boundary: send "Content-Type: multipart/form-data; boundary=..."',
      );
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
    if (jsonDepth(text) > MAX_JSON_DEPTH)
      return done(
        new AppError('request.invalid', `JSON body nested deeper than ${MAX_JSON_DEPTH} levels`),
        undefined,
      );
    defaultJson(req, text, done);
  });

  app.addHook('preValidation', async (req) => {
    if (req.body && typeof req.body === 'object') {
      req.body = dropAbsent(req.body, new Set(req.routeOptions.config?.verbatimBodyKeys ?? []));
    }
  });
}
