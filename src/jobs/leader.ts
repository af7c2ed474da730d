/**
 * Leader election for the scheduler: exactly one process of a deployment runs periodic tasks.
 * PostgreSQL: a session-level advisory lock held on a dedicated connection (lost with the connection).
 * SQLite: a row in `leases` renewed before it expires (one machine, possibly several processes).
 * Lifecycle: start() tries at once and then every `retryMs`; isLeader() is read before each task; stop() releases.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import { pgDriver, type Database } from '../db/connect.ts';
import { leaseOwner, releaseLease, takeLease } from './leases.repository.ts';

/** Holds or seeks leadership. */
export interface LeaderElector {
  isLeader(): boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A fixed advisory-lock key for the scheduler ("sealpost" in ASCII, as a 64-bit integer). */
const ADVISORY_KEY = '8313984049089819508';
const LEASE_NAME = 'scheduler';

/** Creates the elector that fits the database's dialect. */
export function createLeaderElector(
  database: Database,
  owner: string,
  log: Logger,
  retryMs = 5000,
): LeaderElector {
  return database.dialect === 'postgres'
    ? new AdvisoryLockElector(database.pgUrl!, log, retryMs)
    : new LeaseRowElector(database, owner, retryMs);
}

class AdvisoryLockElector implements LeaderElector {
  private client: pg.Client | undefined;
  private leader = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The attempt under way, which stop() waits for so that it cannot take the lock after stopping. */
  private inflight: Promise<void> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly log: Logger,
    private readonly retryMs: number,
  ) {}

  isLeader(): boolean {
    return this.leader;
  }

  async start(): Promise<void> {
    await this.attempt();
  }

  /** Plans one retry; at most one is ever pending, and none after stop(). */
  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.attempt();
    }, this.retryMs);
  }

  private attempt(): Promise<void> {
    return (this.inflight = this.tryLock());
  }

  private async tryLock(): Promise<void> {
    if (this.stopped || this.leader) return;
    try {
      if (!this.client) {
        const client = new (pgDriver().Client)({ connectionString: this.url });
        client.on('error', (err) => this.lost(err));
        await client.connect();
        this.client = client;
      }
      const res = await this.client.query<{ ok: boolean }>(
        `select pg_try_advisory_lock(${ADVISORY_KEY}) as ok`,
      );
      this.leader = res.rows[0]?.ok === true;
      if (this.leader) this.log.info('this process is the scheduler leader');
    } catch (err) {
      this.lost(err);
    }
    if (!this.leader) this.schedule();
  }

  private lost(err: unknown): void {
    if (this.leader) this.log.warn({ err }, 'scheduler leadership lost with its database connection');
    this.leader = false;
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => undefined);
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inflight;
    this.leader = false;
    await this.client?.end().catch(() => undefined);
    this.client = undefined;
  }
}

class LeaseRowElector implements LeaderElector {
  private leader = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The renewal under way, which stop() waits for so that it cannot take the lease after stopping. */
  private inflight: Promise<void> = Promise.resolve();

  constructor(
    private readonly database: Database,
    private readonly owner: string,
    private readonly retryMs: number,
  ) {}

  isLeader(): boolean {
    return this.leader;
  }

  async start(): Promise<void> {
    await (this.inflight = this.renew());
  }

  /** Takes the lease when it is free or expired, or renews our own; the lease lasts three renewal periods. */
  private async renew(): Promise<void> {
    if (this.stopped) return;
    const now = Date.now();
    try {
      await takeLease(this.database.db, LEASE_NAME, this.owner, now + this.retryMs * 3, now);
      this.leader = (await leaseOwner(this.database.db, LEASE_NAME)) === this.owner;
    } catch {
      this.leader = false;
    }
    if (!this.stopped) this.timer = setTimeout(() => void (this.inflight = this.renew()), this.retryMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inflight;
    if (this.leader) {
      await releaseLease(this.database.db, LEASE_NAME, this.owner).catch(() => undefined);
    }
    this.leader = false;
  }
}
