/** The path parameter of every public link of mail (the signed token, its only credential) and its pages' forms. */
import { Type, type TObject } from '@sinclair/typebox';

/** `:token` of `/t/...`, `/u/...` and the preference pages. */
export const TokenParam = Type.Object({ token: Type.String() });

/**
 * The body of a public page's form post: its urlencoded fields, checked for that content type only (a post without a
 * body, or with one of a type an unsubscribe ignores, has no fields to check).
 */
export const formBody = <T extends TObject>(schema: T) => ({
  content: { 'application/x-www-form-urlencoded': { schema } },
});

/** The unsubscribe post: the confirm page's buttons send `scope`, RFC 8058 one-click clients `List-Unsubscribe`. */
export const UnsubscribeForm = Type.Object({
  scope: Type.Optional(
    Type.String({
      maxLength: 16,
      description: '`all` unsubscribes from everything the account sends; anything else, from the list',
    }),
  ),
  'List-Unsubscribe': Type.Optional(
    Type.String({ maxLength: 64, description: '`One-Click` from a mail client (RFC 8058)' }),
  ),
});
