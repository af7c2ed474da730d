/** The path parameter of every public link of mail: the signed token that is its only credential. */
import { Type } from '@sinclair/typebox';

/** `:token` of `/t/...`, `/u/...` and the preference pages. */
export const TokenParam = Type.Object({ token: Type.String() });
