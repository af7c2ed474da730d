/** What every marketing route declares alike: its security schemes, its error answers and its place in the OpenAPI document. */
import { ErrorResponse } from '../mail/error-body.ts';

/** Marketing keys go in `Authorization: Token token=<key>` or `Authorization: Bearer <key>`. */
export const MARKETING_SECURITY: { [name: string]: string[] }[] = [{ token: [] }, { bearer: [] }];

/** The error answers a marketing route may give, all with the documented error body. */
export const MARKETING_ERRORS = {
  400: ErrorResponse,
  401: ErrorResponse,
  403: ErrorResponse,
  404: ErrorResponse,
  409: ErrorResponse,
  422: ErrorResponse,
  429: ErrorResponse,
};

/** Schema fields shared by a marketing route under `prefix`: the bare-prefix twin is hidden from the document. */
export const marketingSchemaBase = (prefix: string) => ({
  hide: prefix === '/v1/marketing',
  tags: ['marketing'],
  security: MARKETING_SECURITY,
});
