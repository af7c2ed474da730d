/** What every part of a running Sealpost shares: configuration, the database, the sealer and the logger. */
import type { Logger } from 'pino';
import type { Config } from './config/schema.ts';
import type { Database } from './db/connect.ts';
import type { Sealer } from './crypto/sealer.ts';
import type { GroupCommitter } from './db/group-commit.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import type { InFlight } from './in-flight.ts';

/** Shared services, built once at start and passed down. */
export interface AppContext {
  config: Config;
  database: Database;
  sealer: Sealer;
  log: Logger;
  /** Public base URL without a trailing slash. */
  publicUrl: string;
  /** Shares transactions between concurrent requests (see db/group-commit.ts). */
  committer: GroupCommitter;
  /** Keys derived from the master key, one per purpose. */
  keys: { tracking: Buffer; returnPath: Buffer };
  /** Failed-authentication throttle per client address, shared by HTTP and SMTP in this process. */
  authThrottle: AuthThrottle;
  /** The bytes of request bodies and SMTP messages this process holds at once, shared by HTTP and SMTP. */
  inFlight: InFlight;
  /** Tells an in-process worker that `queue` has new work; a no-op when no worker runs in this process. */
  wake(queue: string): void;
}

/**
 * The address of a console page, for links in Sealpost's own mail: opened in a browser without a session it leads
 * through sign-in and then to the page. `path` is the part after `/console` (`/forms/<id>/responses/<id>`).
 */
export function consoleUrl(ctx: Pick<AppContext, 'publicUrl'>, path: string): string {
  return `${ctx.publicUrl}/console${path}`;
}
