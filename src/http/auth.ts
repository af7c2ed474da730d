/** Authentication shared by every surface: reads the key from `Bearer <key>` or `Token token=<key>`, checks scope and account. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { authenticateKey, type Principal, type Scope } from '../accounts/keys.service.ts';
import type { Database } from '../db/connect.ts';
import { classify } from './surfaces.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key's identity; set on every non-public request. */
    principal?: Principal;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const TOKEN = /^Token\s+token\s*=\s*"?([^"\s]+)"?\s*$/i;

/** Extracts the key from an Authorization header value, or throws the matching 401. */
export function keyFromHeader(header: string | undefined): string {
  if (!header || !header.trim()) throw new AppError('auth.missing_key', 'missing API key: send "Authorization: Bearer <key>"');
  const m = BEARER.exec(header) ?? TOKEN.exec(header);
  if (!m?.[1]) throw new AppError('auth.bad_scheme', 'unsupported Authorization header: use "Bearer <key>" or "Token token=<key>"');
  return m[1];
}

/**
 * The principal of an authenticated request, checked once more against the scope the route itself needs: the scope
 * authentication enforced was read from the path, and a path may match a route of another surface (a username that
 * is a surface word, say). Routes behind authentication call this.
 */
export function principalOf(req: FastifyRequest, scope: Scope): Principal {
  if (!req.principal) throw new AppError('auth.missing_key');
  if (!req.principal.scopes.has(scope)) throw new AppError('auth.scope', `this API key does not have the "${scope}" scope`);
  return req.principal;
}

/** Installs authentication as the first onRequest hook of the root instance (it runs for unknown routes too). */
export function registerAuth(app: FastifyInstance, database: Database): void {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (req) => {
    const surface = classify(req.method, req.url);
    if (surface.kind === 'public') return;
    const principal = await authenticateKey(database.reader, keyFromHeader(req.headers.authorization), Date.now(), database.db);
    if (!principal.scopes.has(surface.scope)) throw new AppError('auth.scope', `this API key does not have the "${surface.scope}" scope`);
    if (surface.username !== undefined && surface.username.toLowerCase() !== principal.username)
      throw new AppError('auth.forbidden', `this API key does not belong to account "${surface.username}"`);
    req.principal = principal;
  });
}
