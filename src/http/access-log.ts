/**
 * The access log: one line per request at `info`, written when the response has been sent, with the request id (the
 * request logger's binding), method, redacted URL and client address (the logger's `req` serializer, see
 * log-redaction.ts), status and time taken. At `debug` a line is also written when a request arrives, for requests
 * that never finish. Fastify's own request lines (two per request) are turned off; these hooks are not even added
 * when their level is off, so a quieter log costs a request nothing.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/** Adds the access log's hooks for the levels `log` (the app's logger) has enabled. */
export function registerAccessLog(app: FastifyInstance, log: Logger): void {
  if (log.isLevelEnabled('debug'))
    app.addHook('onRequest', (req, _reply, done) => {
      req.log.debug({ req }, 'incoming request');
      done();
    });
  if (!log.isLevelEnabled('info')) return;
  app.addHook('onResponse', (req, reply, done) => {
    req.log.info(
      {
        req,
        res: { statusCode: reply.statusCode },
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
    done();
  });
}
