/**
 * Numbers a request may carry. Ajv coerces a query value such as `1e309` or `Infinity` to `Infinity`, which passes an
 * `integer` check and skips `minimum`/`maximum`, and a 20-digit number to an integer no database column holds exactly.
 * Before a route's schema is compiled for validation, every `integer` and `number` gets the `safeNumber` keyword
 * (installed on Ajv by `safeNumberPlugin`): an integer must be a safe integer, a number finite. Such values are then
 * refused with 400 like any other bad value. The served document keeps the declared schema.
 */

import type { Ajv } from 'ajv';

type Schema = Record<string, unknown>;

/** The keyword's name and the refusal it gives. */
export const SAFE_NUMBER_KEYWORD = 'safeNumber';
export const SAFE_NUMBER_MESSAGE = `must be a finite number no larger than ${Number.MAX_SAFE_INTEGER}`;

const KEEP = new Set(['const', 'default', 'enum', 'examples']);

function typesOf(schema: Schema): string[] {
  const t = schema.type;
  return Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
}

/** A copy of a JSON schema with every `integer` held to safe integers and every `number` to finite values. */
export function boundNumbers<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map((s) => boundNumbers(s) as unknown) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema))
    copy[key] = KEEP.has(key) ? value : boundNumbers(value);
  const types = typesOf(copy);
  if (types.includes('integer')) copy[SAFE_NUMBER_KEYWORD] = 'integer';
  else if (types.includes('number')) copy[SAFE_NUMBER_KEYWORD] = 'number';
  return copy as T;
}

/** Installs the `safeNumber` keyword on an Ajv instance (Fastify's `ajv.onCreate`). */
export function safeNumberPlugin(ajv: Ajv): Ajv {
  ajv.addKeyword({
    keyword: SAFE_NUMBER_KEYWORD,
    schemaType: 'string',
    errors: false,
    validate: (kind: string, data: unknown) =>
      typeof data !== 'number' || (kind === 'integer' ? Number.isSafeInteger(data) : Number.isFinite(data)),
  });
  return ajv;
}
