/** Email HTML shown in the console's sandboxed frames, each answer under a policy of its own instead of the console's. */
import type { FastifyReply } from 'fastify';

/** Captured mail: inline styles and data: or cid: images only; no script, no remote loads (no tracking pixel fires). */
export const MAIL_FRAME_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data: cid:; font-src data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

/**
 * A preview of what staff are writing: as captured mail, but images load from this server (the image library) and
 * over https, so the preview looks as the email will.
 */
export const PREVIEW_FRAME_CSP = MAIL_FRAME_CSP.replace(
  'img-src data: cid:',
  "img-src data: cid: 'self' https:",
);

/** Answers `body` as the document of a same-origin mail frame under `policy`. */
export function sendMailFrame(reply: FastifyReply, body: string, policy = PREVIEW_FRAME_CSP): FastifyReply {
  return reply
    .header('content-security-policy', policy)
    .header('x-frame-options', 'SAMEORIGIN')
    .type('text/html; charset=utf-8')
    .send(body);
}
