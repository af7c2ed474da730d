/** Response headers of every console response: a strict Content-Security-Policy and the headers around it. */
import type { FastifyReply } from 'fastify';

/** Only this server's own scripts, styles, images (and data: images), frames and form targets; nothing may frame the console. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Sets the console's security headers (and no-store, unless the route chose its own caching). */
export function setConsoleHeaders(reply: FastifyReply): void {
  // A route that sets its own policy (a sandboxed mail frame) keeps it.
  if (!reply.hasHeader('content-security-policy')) {
    reply.header('content-security-policy', CONSOLE_CSP);
    reply.header('x-frame-options', 'DENY');
  }
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
  reply.header('cross-origin-opener-policy', 'same-origin');
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
}
