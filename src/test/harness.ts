/** The test harness: a migrated database of the run's dialect, a context, the app (for inject or a real port), and helpers for accounts and keys. */
import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { connect } from '../db/connect.ts';
import { createContext } from '../runtime.ts';
import type { AppContext } from '../context.ts';
import { buildApp, type BuildOptions } from '../app/app.ts';
import { createAccount, type Account } from '../accounts/accounts.service.ts';
import { addDomain, dkimKeyPair, type DkimKeyPair, type DkimSigning } from '../accounts/domains.service.ts';
import { createKey } from '../accounts/keys.service.ts';
import { TEST_DIALECT, createMigratedDatabase, type ScratchDatabase } from './database.ts';
import type { Dialect } from '../db/connect.ts';
import type { ChangeBy } from '../audit/audit.service.ts';

/** The author of changes tests make directly through services (audited like any other). */
export const TEST_BY: ChangeBy = { actor: { type: 'system', id: 'test' } };

/** A migrated context over a scratch database. */
export interface TestContext {
  ctx: AppContext;
  scratch: ScratchDatabase;
  close(): Promise<void>;
}

/** Options for a test context. */
export interface TestContextOptions {
  dialect?: Dialect;
  config?: Partial<Config>;
  /** The logger of the context (a silent one by default); tests that read the log hand in their own. */
  log?: Logger;
}

/** Configuration for tests: defaults, silent logs (SEALPOST_TEST_LOG=debug to see them), overrides on top. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const level = (process.env.SEALPOST_TEST_LOG ?? 'silent') as Config['logLevel'];
  return loadConfig(
    {},
    {
      logLevel: level,
      masterKey: randomBytes(32).toString('base64'),
      httpPort: 0,
      httpHost: '127.0.0.1',
      ...overrides,
    },
  );
}

/** Creates a migrated scratch database and builds a context over it. */
export async function createTestContext(opts: TestContextOptions = {}): Promise<TestContext> {
  const scratch = await createMigratedDatabase(opts.dialect ?? TEST_DIALECT);
  const config = testConfig({ databaseUrl: scratch.url, ...opts.config });
  const database = await connect(scratch.target);
  const log = opts.log ?? pino({ level: config.logLevel });
  const ctx: AppContext = createContext(config, database, Buffer.from(config.masterKey!, 'base64'), log);
  return {
    ctx,
    scratch,
    close: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

/** An account with a verified domain and a key, ready to call the API. */
export interface TestAccount {
  account: Account;
  domain: string;
  key: string;
  keyId: string;
  /** `{ authorization: 'Bearer <key>' }` */
  auth: { authorization: string };
}

/** A test app: the context, the Fastify instance (not listening), and account helpers. */
export interface TestApp extends TestContext {
  app: FastifyInstance;
  /** Creates an account with a verified domain (RSA DKIM unless `dkim` says) and a key of the given scopes (all by default). */
  createAccount(opts?: {
    username?: string;
    scopes?: string;
    domain?: string;
    dkim?: DkimSigning;
  }): Promise<TestAccount>;
}

/** One RSA DKIM key for every test account of this worker: each new one cost 0.2 s of CPU. */
let sharedRsaKey: DkimKeyPair | undefined;

/** Builds a test app over a fresh migrated database. */
export async function createTestApp(opts: TestContextOptions & BuildOptions = {}): Promise<TestApp> {
  const base = await createTestContext(opts);
  const app = await buildApp(base.ctx, opts);
  await app.ready();
  const db = base.ctx.database.db;
  return {
    ...base,
    app,
    close: async () => {
      await app.close();
      await base.close();
    },
    async createAccount(o = {}) {
      const username = o.username ?? `acct${randomBytes(4).toString('hex')}`;
      const domain = o.domain ?? `${username}.example.com`;
      const account = await createAccount(db, username);
      await addDomain(db, base.ctx.sealer, account.customer_id, domain, TEST_BY, {
        verified: true,
        dkim: o.dkim,
        rsaKeyPair: (sharedRsaKey ??= dkimKeyPair('rsa')),
      });
      const k = await createKey(db, account.customer_id, {
        by: TEST_BY,
        scopes: o.scopes ?? 'email,forms,marketing',
        domain,
        description: 'test',
      });
      return { account, domain, key: k.key, keyId: k.id, auth: { authorization: `Bearer ${k.key}` } };
    },
  };
}
