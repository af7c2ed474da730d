/** Authentication shared by every surface: reads the key from `Bearer <key>` or `Token token=<key>`, checks scope and account. */
import type { ChangeBy } from '../audit/audit.service.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { authenticateKey, type Principal, type Scope } from '../accounts/keys.service.ts';
import type { Database } from '../db/connect.ts';
import { classify } from './surfaces.ts';
import type { AuthThrottle } from '../auth-throttle.ts';

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
  if (!header || !header.trim())
    throw new AppError('auth.missing_key', 'missing API key: send "Authorization: Bearer <key>"');
  const m = BEARER.exec(header) ?? TOKEN.exec(header);
  if (!m?.[1])
    throw new AppError(
      'auth.bad_scheme',
      'unsupported Authorization header: use "Bearer <key>" or "Token token=<key>"',
    );
  return m[1];
}

/**
 * The principal of an authenticated request, checked once more against the scope the route itself needs: the scope
 * authentication enforced was read from the path, and a path may match a route of another surface (a username that
 * is a surface word, say). Routes behind authentication call this.
 */
export function principalOf(req: FastifyRequest, scope: Scope): Principal {
  if (!req.principal) throw new AppError('auth.missing_key');
  if (!req.principal.scopes.has(scope))
    throw new AppError('auth.scope', `this API key does not have the "${scope}" scope`);
  return req.principal;
}

/** The API key of a request as the author of a change, for the audit trail the service writes (the key id, the client's address). */
export function changeByKey(req: FastifyRequest, principal: Principal): ChangeBy {
  return { actor: { type: 'key', id: principal.keyId }, ip: req.ip };
}

/**
 * Authenticates a key. A valid key always passes, whatever failed before from its address; a wrong or revoked key
 * counts as a failure of the address and of the key's prefix, and is refused as throttled past the limit.
 */
async function authenticateThrottled(
  database: Database,
  throttle: AuthThrottle,
  key: string,
  address: string,
): Promise<Principal> {
  try {
    return await authenticateKey(database.reader, key, Date.now(), database.db);
  } catch (err) {
    if (!(err instanceof AppError) || (err.code !== 'auth.invalid_key' && err.code !== 'auth.revoked_key'))
      throw err;
    const refusedMs = await throttle.failed(address, key, 'http');
    if (refusedMs === 0) throw err;
    const seconds = Math.ceil(refusedMs / 1000);
    throw new AppError(
      'auth.throttled',
      `too many failed authentications from this address or with this key; retry in ${seconds} s`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }
}

/**
 * The account of a public request's API key when it carries one with `scope`, for public routes that grant a key's
 * holder more (undefined without a key or without the scope); a wrong key is refused and throttled as anywhere else.
 */
export async function accountOfKey(
  req: FastifyRequest,
  database: Database,
  throttle: AuthThrottle,
  scope: Scope,
): Promise<number | undefined> {
  if (!req.headers.authorization) return undefined;
  const key = keyFromHeader(req.headers.authorization);
  const principal = await authenticateThrottled(database, throttle, key, req.ip);
  return principal.scopes.has(scope) ? principal.customerId : undefined;
}

/** Installs authentication as the first onRequest hook of the root instance (it runs for unknown routes too). */
export function registerAuth(app: FastifyInstance, database: Database, throttle: AuthThrottle): void {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (req) => {
    const surface = classify(req.method, req.url);
    if (surface.kind === 'public') return;
    const key = keyFromHeader(req.headers.authorization);
    const principal = await authenticateThrottled(database, throttle, key, req.ip);
    if (!principal.scopes.has(surface.scope))
      throw new AppError('auth.scope', `this API key does not have the "${surface.scope}" scope`);
    if (surface.username !== undefined && surface.username.toLowerCase() !== principal.username)
      throw new AppError('auth.forbidden', `this API key does not belong to account "${surface.username}"`);
    req.principal = principal;
  });
}
