/** The secure message page `/s/<token>` and its attachment downloads. Public: the token is the credential. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../http/typed.ts';
import type { MailKind } from '../delivery/kind.ts';
import {
  attachmentDisposition,
  secureAttachment,
  securePage,
  type ReadRecorder,
} from './secure-message.service.ts';
import { PAGE_HEADERS } from '../http/page.ts';
import type { AppContext } from '../context.ts';
import { brandOf } from '../accounts/brand.service.ts';
import { record } from '../audit/audit.service.ts';
import type { FastifyRequest } from 'fastify';

const HTML = 'text/html; charset=utf-8';

/** An attachment download: a sandboxed document that loads nothing, and only this origin may embed or fetch it. */
const DOWNLOAD_HEADERS = {
  'content-security-policy': "default-src 'none'; sandbox",
  'cross-origin-resource-policy': 'same-origin',
};

/** Registers the secure message routes over the kinds of mail whose deliveries may have a secure link. */
export function secureMessageRoutes(app: TypedApp, ctx: AppContext, kinds: readonly MailKind[]): void {
  const brand = (customerId: number) => brandOf(ctx, customerId);
  const tags = ['secure message'];
  // The recipient is the reader: the sender's account sees when and from where its patient opened the message.
  const recorder =
    (req: FastifyRequest): ReadRecorder =>
    (read) =>
      record(ctx.database.db, {
        accountId: read.customerId,
        actor: { type: 'recipient', id: read.address },
        action: 'secure_message.read',
        target: read.target,
        ip: req.ip,
        detail: { part: read.part },
      });
  app.get(
    '/s/:token',
    {
      config: { protectedContent: 'secure_message.read' },
      schema: {
        tags,
        summary: 'The secure message page a recipient reaches from a secure notification',
        params: Type.Object({ token: Type.String() }),
        produces: ['text/html'],
      },
    },
    async (req, reply) => {
      const page = await securePage(kinds, req.params.token, brand, recorder(req));
      return reply.code(page.status).headers(PAGE_HEADERS).type(HTML).send(page.html);
    },
  );
  app.get(
    '/s/:token/attachments/:index',
    {
      config: { protectedContent: 'secure_message.read' },
      schema: {
        tags,
        summary: 'Download an attachment of a secure message',
        params: Type.Object({ token: Type.String(), index: Type.String() }),
        produces: ['application/octet-stream'],
      },
    },
    async (req, reply) => {
      const result = await secureAttachment(kinds, req.params.token, req.params.index, recorder(req));
      if (result.kind === 'page')
        return reply.code(result.page.status).headers(PAGE_HEADERS).type(HTML).send(result.page.html);
      // Never the sender's type: a text/html or SVG attachment served from this origin would run as a page of it.
      return reply
        .headers({ ...PAGE_HEADERS, ...DOWNLOAD_HEADERS })
        .header('content-disposition', attachmentDisposition(result.fileName))
        .type('application/octet-stream')
        .send(result.bytes);
    },
  );
}
