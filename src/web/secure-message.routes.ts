/** The secure message page `/s/<token>` and its attachment downloads. Public: the token is the credential. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../http/typed.ts';
import type { MailKind } from '../delivery/kind.ts';
import { attachmentDisposition, secureAttachment, securePage } from './secure-message.service.ts';
import { PAGE_HEADERS } from '../http/page.ts';
import type { AppContext } from '../context.ts';
import { brandOf } from '../accounts/brand.service.ts';

const HTML = 'text/html; charset=utf-8';

/** Registers the secure message routes over the kinds of mail whose deliveries may have a secure link. */
export function secureMessageRoutes(app: TypedApp, ctx: AppContext, kinds: readonly MailKind[]): void {
  const brand = (customerId: number) => brandOf(ctx, customerId);
  const tags = ['secure message'];
  app.get(
    '/s/:token',
    {
      schema: {
        tags,
        summary: 'The secure message page a recipient reaches from a secure notification',
        params: Type.Object({ token: Type.String() }),
        produces: ['text/html'],
      },
    },
    async (req, reply) => {
      const page = await securePage(kinds, req.params.token, brand);
      return reply.code(page.status).headers(PAGE_HEADERS).type(HTML).send(page.html);
    },
  );
  app.get(
    '/s/:token/attachments/:index',
    {
      schema: {
        tags,
        summary: 'Download an attachment of a secure message',
        params: Type.Object({ token: Type.String(), index: Type.String() }),
        produces: ['application/octet-stream'],
      },
    },
    async (req, reply) => {
      const result = await secureAttachment(kinds, req.params.token, req.params.index);
      if (result.kind === 'page')
        return reply.code(result.page.status).headers(PAGE_HEADERS).type(HTML).send(result.page.html);
      return reply
        .headers({ ...PAGE_HEADERS, 'content-security-policy': "default-src 'none'; sandbox" })
        .header('content-disposition', attachmentDisposition(result.fileName))
        .type(result.contentType)
        .send(result.bytes);
    },
  );
}
