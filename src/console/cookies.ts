/** The console's cookies: the session cookie and the sign-in form's token cookie, with the attributes both need. */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The session cookie's name. */
export const SESSION_COOKIE = 'sealpost_console';
/** The sign-in form's token cookie (a double-submit token for the form that has no session yet). */
export const SIGN_IN_COOKIE = 'sealpost_sign_in';

/** The browser's time zone, written by console.js (not a secret: readable by the page's script). */
export const TIME_ZONE_COOKIE = 'sealpost_tz';

/** Reads one cookie from the request; a value that is not valid percent-encoding counts as no cookie. */
export function readCookie(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decoded(part.slice(eq + 1).trim());
  }
  return undefined;
}

function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** Sets a cookie: HttpOnly, SameSite, Path, Secure when the public URL is https; `value` null clears it. */
export function writeCookie(
  reply: FastifyReply,
  name: string,
  value: string | null,
  opts: { secure: boolean; path: string; sameSite: 'Lax' | 'Strict' },
): void {
  const parts = [
    `${name}=${value === null ? '' : encodeURIComponent(value)}`,
    `Path=${opts.path}`,
    'HttpOnly',
    `SameSite=${opts.sameSite}`,
  ];
  if (opts.secure) parts.push('Secure');
  if (value === null) parts.push('Max-Age=0');
  const prev = reply.getHeader('set-cookie');
  const list = prev === undefined ? [] : Array.isArray(prev) ? prev : [String(prev)];
  reply.header('set-cookie', [...list, parts.join('; ')]);
}
