/**
 * Route schemas compiled on first use. Fastify compiles a validator (Ajv) and a response serializer (fast-json-stringify)
 * for every route while the server starts; with a hundred operations that was most of the start time and memory, spent
 * on routes a given process may never serve. These factories hand Fastify the same compilers wrapped so that each
 * schema is compiled the first time a request needs it, and kept from then on.
 */
import ValidatorSelector from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Serialize = (doc: unknown) => string;
type ValidatorFactory = (externalSchemas: unknown, options: unknown) => (route: unknown) => Validate;
type SerializerFactory = (externalSchemas: unknown, options: unknown) => (route: unknown) => Serialize;
type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;

/** Fastify's `schemaController.compilersFactory`, compiling each route's schemas lazily. */
export function lazyCompilersFactory(): CompilersFactory {
  const validators = (ValidatorSelector as unknown as () => ValidatorFactory)();
  const serializers = (SerializerSelector as unknown as () => SerializerFactory)();
  const factory: { buildValidator: ValidatorFactory; buildSerializer: SerializerFactory } = {
    buildValidator: (externalSchemas, options) => {
      const compile = validators(externalSchemas, options);
      return (route) => {
        let real: Validate | undefined;
        const validate: Validate = (data, context) => {
          real ??= compile(route);
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
      const compile = serializers(externalSchemas, options);
      return (route) => {
        let real: Serialize | undefined;
        return (doc) => (real ??= compile(route))(doc);
      };
    },
  };
  return factory as unknown as CompilersFactory;
}
