/**
 * Route schemas compiled on first use. Fastify compiles a validator (Ajv) and a response serializer (fast-json-stringify)
 * for every route while the server starts; with a hundred operations that was most of the start time and memory, spent
 * on routes a given process may never serve. These factories hand Fastify the same compilers wrapped so that each
 * schema is compiled the first time a request needs it, and kept from then on.
 */
import type { FastifyServerOptions } from 'fastify';
import { onFirstUse } from '../on-first-use.ts';
import { boundNumbers } from './number-bounds.ts';

type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Serialize = (doc: unknown) => string;
type ValidatorFactory = (externalSchemas: unknown, options: unknown) => (route: unknown) => Validate;
type SerializerFactory = (externalSchemas: unknown, options: unknown) => (route: unknown) => Serialize;
type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;

// The compilers themselves (Ajv, fast-json-stringify) are loaded with the first schema compiled, not at start.
const validatorSelector = onFirstUse<() => ValidatorFactory>('@fastify/ajv-compiler');
const serializerSelector = onFirstUse<() => SerializerFactory>('@fastify/fast-json-stringify-compiler');

/** The route with its schema's numbers bounded (see number-bounds.ts). */
function withBoundedNumbers(route: unknown): unknown {
  const r = route as { schema?: unknown };
  return r && typeof r === 'object' && r.schema ? { ...r, schema: boundNumbers(r.schema) } : route;
}

/** Fastify's `schemaController.compilersFactory`, compiling each route's schemas lazily. */
export function lazyCompilersFactory(): CompilersFactory {
  let validators: ValidatorFactory | undefined;
  let serializers: SerializerFactory | undefined;
  const factory: { buildValidator: ValidatorFactory; buildSerializer: SerializerFactory } = {
    buildValidator: (externalSchemas, options) => {
      let compiler: ((route: unknown) => Validate) | undefined;
      const compile = (route: unknown) =>
        (compiler ??= (validators ??= validatorSelector()())(externalSchemas, options))(route);
      return (route) => {
        let real: Validate | undefined;
        const validate: Validate = (data, context) => {
          real ??= compile(withBoundedNumbers(route));
          const result = real(data, context);
          validate.errors = real.errors;
          return result;
        };
        // Fastify passes the parent object (needed for Ajv to coerce a root value) only to functions that say they are Ajv's.
        validate.schemaEnv = true;
        return validate;
      };
    },
    buildSerializer: (externalSchemas, options) => {
      let compiler: ((route: unknown) => Serialize) | undefined;
      const compile = (route: unknown) =>
        (compiler ??= (serializers ??= serializerSelector()())(externalSchemas, options))(route);
      return (route) => {
        let real: Serialize | undefined;
        return (doc) => (real ??= compile(route))(doc);
      };
    },
  };
  return factory as unknown as CompilersFactory;
}
