/** What every part of a running Sealpost shares: configuration, the database, the sealer and the logger. */
import type { Logger } from 'pino';
import type { Config } from './config/schema.ts';
import type { Database } from './db/connect.ts';
import type { Sealer } from './crypto/sealer.ts';

/** Shared services, built once at start and passed down. */
export interface AppContext {
  config: Config;
  database: Database;
  sealer: Sealer;
  log: Logger;
  /** Public base URL without a trailing slash. */
  publicUrl: string;
}
