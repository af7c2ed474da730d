/**
 * The relay transport: every message goes to one smarthost, `smtp://` (STARTTLS) or `smtps://` (implicit TLS), with
 * optional AUTH from the URL. Messages go over a pool of sessions (session-pool.ts), so the common case pays for a
 * handshake once per session, not once per message: messages that require TLS only over sessions that negotiated it,
 * messages that may go in clear (allowNonTLS, secure notifications) over any, and each outcome says whether TLS was used.
 * Lifecycle: sessions open on first use and close when worn, after a quiet minute, or on close().
 */
import type { Transport } from './transport.ts';
import type { SmtpSettings, SmtpTarget } from './smtp-client.ts';
import { sessionPools } from './session-pool.ts';

/** Parses a relay URL into a session target. */
export function relayTarget(url: string): SmtpTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`SEALPOST_RELAY_URL is not a URL: ${url.replace(/\/\/[^@/]*@/, '//***@')}`);
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:')
    throw new Error('SEALPOST_RELAY_URL must start with smtp:// (STARTTLS) or smtps:// (implicit TLS)');
  const secure = parsed.protocol === 'smtps:';
  const user = decodeURIComponent(parsed.username);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    auth: user ? { user, pass: decodeURIComponent(parsed.password) } : undefined,
  };
}

/** The relay transport for `url`. */
export function createRelayTransport(url: string, settings: SmtpSettings): Transport {
  const target = relayTarget(url);
  const pools = sessionPools(settings, settings.maxConnections ?? 5);
  return {
    name: 'relay',
    async send(req) {
      return pools.send(target, { from: req.from, to: req.to }, req.raw, req.requireTls);
    },
    close: async () => pools.close(),
  };
}
