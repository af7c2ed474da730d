/** The documented error body every JSON route answers with (see docs/errors.md), as a response schema. */
import { Type } from '@sinclair/typebox';

/** Error body of every surface (see docs/errors.md). */
export const ErrorResponse = Type.Object(
  {
    message: Type.String(),
    error_code: Type.String(),
    errors: Type.Array(
      Type.Object({
        code: Type.Integer(),
        title: Type.String(),
        details: Type.String(),
        message: Type.String(),
      }),
    ),
  },
  { additionalProperties: true },
);

/** The error responses of a route, one entry per status, for its response schema. */
export function errorResponses<S extends number>(...statuses: S[]): Record<S, typeof ErrorResponse> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorResponse])) as Record<S, typeof ErrorResponse>;
}
