/**
 * The access log: one line per request at `info`, written when the response has been sent, with the request id (the
 * request logger's binding), method, redacted URL and client address (the logger's `req` serializer, see
 * log-redaction.ts), status and time taken. The line Fastify writes when a request arrives moves to `debug`, where it
 * still helps with requests that never finish. Fastify's other lines (not found, errors) are left as they are.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Fastify's request lines as Sealpost writes them. */
export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { req: request, res: reply, responseTime: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
