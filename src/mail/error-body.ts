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
