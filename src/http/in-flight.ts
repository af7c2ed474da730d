/**
 * Holds each request body's bytes against the process's in-flight budget (`../in-flight.ts`) from before the body is
 * read until the answer is sent or the client goes away: the declared length, or the body limit for a chunked body
 * whose length is not known. A request that does not fit is answered 503 `busy` with Retry-After, its body unread.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { BUSY_RETRY_SECONDS, type InFlight } from '../in-flight.ts';

/** The bytes a request's body may occupy: its declared length, the limit when chunked, 0 without a body. */
function bodyBytes(req: FastifyRequest, bodyLimit: number): number {
  const length = req.headers['content-length'];
  if (length !== undefined) return Math.min(bodyLimit, Number(length) || 0);
  return req.headers['transfer-encoding'] !== undefined ? bodyLimit : 0;
}

/** Installs the in-flight bound as an onRequest hook (after authentication and the rate limit). */
export function registerInFlight(app: FastifyInstance, inFlight: InFlight, bodyLimit: number): void {
  app.addHook('onRequest', async (req, reply) => {
    const bytes = bodyBytes(req, bodyLimit);
    if (bytes === 0) return;
    if (!inFlight.take(bytes))
      throw new AppError(
        'busy',
        `the server holds too many messages at once; retry in ${BUSY_RETRY_SECONDS} s`,
        {
          headers: { 'retry-after': String(BUSY_RETRY_SECONDS) },
        },
      );
    let held = true;
    const release = () => {
      if (held) inFlight.release(bytes);
      held = false;
    };
    reply.raw.once('close', release);
    reply.raw.once('finish', release);
  });
}
