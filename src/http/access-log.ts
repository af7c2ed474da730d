/**
 * The access log: one line per request at `info`, written when the response has been sent, with the request id (the
 * request logger's binding), method, redacted URL and client address (see log-redaction.ts), status and time taken.
 * The line Fastify writes when a request arrives moves to `debug`, where it still helps with requests that never
 * finish. Fastify's other lines (not found, errors) are left as they are.
 *
 * The line is the one pino would write for these fields, put together here and handed to the logger's own stream:
 * through pino's general path (serializers, redaction of every object logged, formatting each field) a line cost
 * about four times as much CPU to make, and the log is written for every request the service answers
 * (docs/decisions.md, "Access log").
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';
import { loggableRequest } from './log-redaction.ts';

const { streamSym, chindingsSym } = pino.symbols;

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
    const responseTime = Math.round(reply.elapsedTime * 10) / 10;
    if (error) {
      reply.log.error({ req: request, res: reply, responseTime, err: error }, 'request errored');
      return;
    }
    // The app's logger is pino's: its stream, and its bindings as JSON (`,"reqId":"…"`).
    const log = reply.log as unknown as pino.Logger & Record<symbol, unknown>;
    if (!log.isLevelEnabled('info')) return;
    const stream = log[streamSym] as { write(line: string): unknown };
    stream.write(
      `{"level":${log.levels.values.info},"time":${Date.now()}${log[chindingsSym] as string},` +
        `"req":${JSON.stringify(loggableRequest(request))},"res":{"statusCode":${reply.statusCode}},` +
        `"responseTime":${responseTime},"msg":"request completed"}\n`,
    );
  }
}
