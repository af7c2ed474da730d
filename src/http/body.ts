/**
 * Body-parsing rules that real clients need: bodies on GET/HEAD/DELETE are ignored whatever their content type; an
 * empty JSON body is no body; optional fields sent as null, "", [] or {} are treated as absent before validation.
 */
import type { Readable } from 'node:stream';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { holdBase64, letGo } from '../mail/held-attachments.ts';
import { JsonReader, restoreLongStrings, ShortJsonReader, type LongString } from './json-reader.ts';

const IGNORED_TYPE = 'application/x-sealpost-ignored-body';
/** Deepest nesting of arrays and objects a JSON body may have; deeper bodies are refused before parsing. */
export const MAX_JSON_DEPTH = 64;
/** JSON bodies at least this long, or of unknown length, are read as they arrive (see JsonReader). */
const STREAMED_BODY = 1024 * 1024;
const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Body keys whose values are kept verbatim by the absent-value rule (free-form JSON such as a form definition). */
    verbatimBodyKeys?: readonly string[];
    /** A DELETE route that reads a JSON body (a bulk delete whose ids clients send in the body); other bodies stay ignored. */
    jsonBodyOnDelete?: boolean;
    /** A send route whose long base64 `attachments[].content` reach the handler as stand-ins for held bytes. */
    holdsAttachments?: boolean;
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

/** The stand-ins each request holds attachments under. */
const heldBy = new WeakMap<FastifyRequest, string[]>();

/**
 * Reads a JSON body through a JsonReader, as Fastify reads bodies: refused with 413 past `limit` (declared or
 * received), and with 400 when the received length is not the declared one.
 */
function readJson(
  req: FastifyRequest,
  payload: Readable,
  limit: number,
): Promise<{ text: string; longs: Map<string, LongString> }> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  // A body declared under 1 MiB is read whole: scanning it would cost more than the copies it saves.
  const reader = declared < STREAMED_BODY ? new ShortJsonReader() : new JsonReader();
  let received = 0;
  return new Promise((resolve, reject) => {
    const stop = (err?: Error) => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      if (err) reject(err);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (received > limit) return stop(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      reader.write(bytes);
    };
    const onEnd = () => {
      if (!Number.isNaN(declared) && received !== declared)
        return stop(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      stop();
      resolve(reader.finish());
    };
    const onError = (err: Error & { statusCode?: number }) => {
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
      stop(err);
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  });
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
  const parse = (req: FastifyRequest, text: string) =>
    new Promise<unknown>((resolve, reject) =>
      defaultJson(req, text, (err, body) => (err ? reject(err) : resolve(body))),
    );
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', async (req: FastifyRequest, payload: Readable) => {
    const { text, longs } = await readJson(
      req,
      payload,
      req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit!,
    );
    if (longs.size === 0 && text.trim() === '') return undefined;
    if (jsonDepth(text) > MAX_JSON_DEPTH)
      throw new AppError('request.invalid', `JSON body nested deeper than ${MAX_JSON_DEPTH} levels`);
    const body = await parse(req, text);
    if (longs.size === 0) return body;
    if (!req.routeOptions.config?.holdsAttachments) return restoreLongStrings(body, longs);
    const held: string[] = [];
    heldBy.set(req, held);
    return restoreLongStrings(body, longs, (long) => {
      const standIn = holdBase64(long.raw, long.bytes);
      held.push(standIn);
      return standIn;
    });
  });
  // Held attachments are let go when the answer is sent or the client goes away, whatever became of the request: hooks
  // of the routes that hold them only, so no other request pays for them.
  const letGoOf = async (req: FastifyRequest) => {
    const held = heldBy.get(req);
    if (held) letGo(held);
  };
  app.addHook('onRoute', (route) => {
    if (!route.config?.holdsAttachments) return;
    route.onResponse = [...[route.onResponse ?? []].flat(), letGoOf];
    route.onRequestAbort = [...[route.onRequestAbort ?? []].flat(), letGoOf];
  });

  app.addHook('preValidation', async (req) => {
    if (req.body && typeof req.body === 'object') {
      req.body = dropAbsent(req.body, new Set(req.routeOptions.config?.verbatimBodyKeys ?? []));
    }
  });
}
