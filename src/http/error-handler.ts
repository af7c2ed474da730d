/**
 * The one error handler: turns AppError (and Fastify's own 4xx errors) into the documented body
 * `{message, error_code, errors: [{code, title, details, message}], ...extra}`. Anything else is a 500 whose details are logged, never sent.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorDetail } from '../errors/app-error.ts';
import { CATALOGUE, type ErrorCode } from '../errors/catalogue.ts';
import { SAFE_NUMBER_KEYWORD, SAFE_NUMBER_MESSAGE } from './number-bounds.ts';

/** The JSON body of every error response. */
export function errorBody(err: AppError): Record<string, unknown> {
  const spec = CATALOGUE[err.code];
  const details =
    err.details.length > 0
      ? err.details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join('; ')
      : err.message;
  return {
    ...err.extra,
    message: err.message,
    error_code: err.code,
    errors: [{ code: spec.status, title: spec.title, details, message: err.message }],
    ...(err.details.length > 0 ? { fields: err.details } : {}),
  };
}

type AjvError = {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
};

/** A JSON pointer as a field path clients recognise: `/data/messages/3/content/text~1plain` → `data.messages[3].content.text/plain`. */
function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .filter(Boolean)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, seg) => (/^\d+$/.test(seg) ? `${path}[${seg}]` : path ? `${path}.${seg}` : seg), '');
}

/** Human-readable details from a schema validation failure: `data.message.headers.subject is required`. */
function validationDetails(context: string | undefined, errors: AjvError[]): ErrorDetail[] {
  return errors.map((e) => {
    const base = fieldPath(e.instancePath ?? '');
    if (e.keyword === 'required') {
      const field = [base, String(e.params?.missingProperty ?? '')].filter(Boolean).join('.');
      return { field, message: 'is required' };
    }
    if (e.keyword === 'additionalProperties') {
      const field = [base, String(e.params?.additionalProperty ?? '')].filter(Boolean).join('.');
      return { field, message: 'is not allowed' };
    }
    return {
      field: base || context || 'body',
      message: e.keyword === SAFE_NUMBER_KEYWORD ? SAFE_NUMBER_MESSAGE : (e.message ?? 'is invalid'),
    };
  });
}

/** The AppError a Fastify error stands for: a schema failure becomes request.invalid naming each field. */
export function fromFastifyError(err: FastifyError): AppError {
  if (err.validation) {
    const details = validationDetails(err.validationContext, err.validation as AjvError[]);
    const message = details.map((d) => `${d.field} ${d.message}`).join('; ');
    return new AppError('request.invalid', message, { details });
  }
  const status = err.statusCode ?? 500;
  const code: ErrorCode | undefined =
    status === 413
      ? 'request.too_large'
      : status === 415
        ? 'request.unsupported_media_type'
        : status === 404
          ? 'not_found'
          : status === 429
            ? 'rate_limited'
            : status >= 400 && status < 500
              ? 'request.invalid'
              : undefined;
  if (!code) return new AppError('internal', undefined, { cause: err });
  return new AppError(code, err.message);
}

/** Above this many declared body bytes, a request refused before its body was read has its connection closed. */
const DRAIN_AT_MOST = 64 * 1024;

/**
 * True when a request is refused before a large body was read (rate limit, authentication, a declared length over the
 * limit): reading it only to throw it away would cost more than the client's next connection, so the connection
 * closes after the answer. A small body is read and dropped, keeping the connection.
 */
function largeBodyUnread(req: FastifyRequest): boolean {
  if (req.raw.complete) return false;
  const length = req.headers['content-length'];
  return length === undefined
    ? req.headers['transfer-encoding'] !== undefined
    : Number(length) > DRAIN_AT_MOST;
}

/** Installs the error handler and the not-found handler. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((raw: FastifyError | AppError, req: FastifyRequest, reply: FastifyReply) => {
    const err = raw instanceof AppError ? raw : fromFastifyError(raw);
    // Messages of client errors can quote what was sent (an address, a path with a token): the log gets the code only.
    if (err.status >= 500) req.log.error({ err: raw }, 'request failed');
    else req.log.info({ code: err.code, status: err.status }, CATALOGUE[err.code].title);
    if (largeBodyUnread(req)) void reply.header('connection', 'close');
    void reply.code(err.status).headers(err.headers).send(errorBody(err));
  });
  app.setNotFoundHandler((req, reply) => {
    void reply
      .code(404)
      .send(errorBody(new AppError('not_found', `no route for ${req.method} ${req.url.split('?', 1)[0]}`)));
  });
}
