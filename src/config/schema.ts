/** The configuration schema: every key, its type, default and meaning. docs/configuration.md mirrors it (a test keeps them in step). */
import { DOOR_KEYS } from './door-keys.ts';

/** One configuration key: its environment name, the schema of its value, its default and a description. */
export interface KeySpec {
  env: string;
  kind: 'string' | 'integer' | 'boolean' | 'enum' | 'durations' | 'proxies';
  values?: readonly string[];
  /** For a string that is a URL: the schemes it may have (it must also name a host). */
  schemes?: readonly string[];
  min?: number;
  max?: number;
  default?: string | number | boolean;
  doc: string;
}

/** All keys, by their property name on the Config object. */
export const KEYS = {
  databaseUrl: {
    env: 'SEALPOST_DATABASE_URL',
    kind: 'string',
    doc: 'Database URL. Empty means the embedded SQLite database `<dataDir>/sealpost.db`. `sqlite:///abs/path.db`, `sqlite:relative/path.db` or `postgres://user@host:5432/db`.',
  },
  databasePoolSize: {
    env: 'SEALPOST_DATABASE_POOL_SIZE',
    kind: 'integer',
    min: 1,
    max: 1000,
    default: 10,
    doc: 'PostgreSQL connections each process may open.',
  },
  sqliteSynchronous: {
    env: 'SEALPOST_SQLITE_SYNCHRONOUS',
    kind: 'enum',
    values: ['FULL', 'NORMAL'],
    default: 'FULL',
    doc: 'SQLite `synchronous` setting. FULL makes every acknowledged write survive a power loss; NORMAL (in WAL mode) survives a process crash but may lose the last commits on power loss, for more speed.',
  },
  dataDir: {
    env: 'SEALPOST_DATA_DIR',
    kind: 'string',
    default: './sealpost-data',
    doc: 'Directory for the embedded database, the generated master key and other local state.',
  },
  httpHost: {
    env: 'SEALPOST_HTTP_HOST',
    kind: 'string',
    default: '0.0.0.0',
    doc: 'Address the HTTP server listens on.',
  },
  httpPort: {
    env: 'SEALPOST_HTTP_PORT',
    kind: 'integer',
    min: 0,
    max: 65535,
    default: 8080,
    doc: 'Port the HTTP server listens on (0 picks a free port).',
  },
  publicUrl: {
    env: 'SEALPOST_PUBLIC_URL',
    kind: 'string',
    schemes: ['http', 'https'],
    doc: 'Base URL under which people and mail clients reach this server (tracking links, hosted forms, secure message pages). Empty means `http://localhost:<httpPort>`.',
  },
  trustProxy: {
    env: 'SEALPOST_TRUST_PROXY',
    kind: 'proxies',
    default: 'false',
    doc: 'Addresses of the reverse proxies whose `X-Forwarded-*` headers are believed (client IP, protocol): a comma-separated list of IP addresses, CIDR ranges and the names `loopback`, `linklocal` and `uniquelocal`. `X-Forwarded-For` is read from the right and the client is the first address that is not a trusted proxy. `true` means `loopback` (one proxy on the same host); `false` trusts none.',
  },
  bodyLimitBytes: {
    env: 'SEALPOST_BODY_LIMIT_BYTES',
    kind: 'integer',
    min: 1024,
    default: 31457280,
    doc: 'Largest HTTP request body accepted, in bytes (attachments travel base64-encoded inside JSON).',
  },
  maxInFlightBytes: {
    env: 'SEALPOST_MAX_IN_FLIGHT_BYTES',
    kind: 'integer',
    min: 0,
    default: 268435456,
    doc: 'Most bytes of request bodies and SMTP messages one process holds at once. Past it a new request is answered 503 with `Retry-After` (SMTP `451`) until others finish; one is always let through when nothing else is held. 0 turns the bound off.',
  },
  logLevel: {
    env: 'SEALPOST_LOG_LEVEL',
    kind: 'enum',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    doc: 'Log level of the structured (JSON) log on standard output.',
  },
  masterKey: {
    env: 'SEALPOST_MASTER_KEY',
    kind: 'string',
    doc: 'Master encryption key: 32 bytes, base64. Encrypts message bodies, attachments, form submissions and DKIM private keys at rest. Required with PostgreSQL; with the embedded database it is generated into `<dataDir>/master.key` on first start when absent.',
  },
  rateLimitPerMinute: {
    env: 'SEALPOST_RATE_LIMIT_PER_MINUTE',
    kind: 'integer',
    min: 0,
    default: 6000,
    doc: 'Requests per minute allowed for one API key across the authenticated API. 0 turns the limiter off.',
  },
  rateLimitRedisUrl: {
    env: 'SEALPOST_RATE_LIMIT_REDIS_URL',
    kind: 'string',
    doc: 'Optional Redis URL (`redis://127.0.0.1:6379`). When set, API nodes share one rate-limit budget per key through Redis; otherwise each node counts in its own memory.',
  },
  metricsToken: {
    env: 'SEALPOST_METRICS_TOKEN',
    kind: 'string',
    doc: 'When set, `/metrics` requires `Authorization: Bearer <token>`.',
  },
  metricsPort: {
    env: 'SEALPOST_METRICS_PORT',
    kind: 'integer',
    min: 0,
    max: 65535,
    doc: 'Port on which a process without the api role (`--roles worker`, `--roles smtp`) serves `/metrics`, `/healthz` and `/readyz`, so the pipeline counters of that process can be scraped. Unset: such a process serves no HTTP.',
  },
  roles: {
    env: 'SEALPOST_ROLES',
    kind: 'string',
    default: 'api,worker,smtp',
    doc: 'Roles `sealpost start` runs when `--roles` is not given: a comma-separated subset of `api`, `worker`, `smtp`.',
  },
  nodeName: {
    env: 'SEALPOST_NODE_NAME',
    kind: 'string',
    doc: 'Name of this machine among the nodes sharing a database, recorded on every lease. Empty means the host name. A worker starting reclaims at once the work rows earlier, dead runs on the same node still lease; give every machine its own name.',
  },
  workerPollMs: {
    env: 'SEALPOST_WORKER_POLL_MS',
    kind: 'integer',
    min: 10,
    default: 500,
    doc: 'How often an idle worker looks for due work rows, in milliseconds.',
  },
  jobLeaseMs: {
    env: 'SEALPOST_JOB_LEASE_MS',
    kind: 'integer',
    min: 1000,
    default: 300000,
    doc: 'How long a claimed work row stays leased to a worker before another worker may take it again.',
  },
  nodeTakeoverMs: {
    env: 'SEALPOST_NODE_TAKEOVER_MS',
    kind: 'integer',
    min: 1000,
    default: 30000,
    doc: 'Every worker renews a heartbeat in the database at a third of this interval. A worker silent for longer (killed, or cut off from the database) is taken for dead: a live worker takes over the work rows it leased at once instead of waiting out their lease. A message that was being delivered when its worker died may go out twice, with the same Message-ID.',
  },
  jobRetentionDays: {
    env: 'SEALPOST_JOB_RETENTION_DAYS',
    kind: 'integer',
    min: 1,
    default: 30,
    doc: 'Finished work rows (done or failed) older than this many days are removed by the scheduler. Unfinished work is never removed.',
  },
  shutdownTimeoutMs: {
    env: 'SEALPOST_SHUTDOWN_TIMEOUT_MS',
    kind: 'integer',
    min: 0,
    default: 15000,
    doc: 'On SIGTERM/SIGINT, how long to wait for in-flight requests and running work before exiting.',
  },
  transport: {
    env: 'SEALPOST_TRANSPORT',
    kind: 'enum',
    values: ['capture', 'relay', 'mx'],
    default: 'capture',
    doc: "How mail leaves: `capture` keeps every message in the capture store and delivers nowhere (a fresh install sends no mail by surprise); `relay` hands it to the smarthost in SEALPOST_RELAY_URL; `mx` delivers directly to each recipient domain's MX hosts.",
  },
  relayUrl: {
    env: 'SEALPOST_RELAY_URL',
    kind: 'string',
    schemes: ['smtp', 'smtps'],
    doc: 'The smarthost for the `relay` transport: `smtp://user:pass@host:587` (STARTTLS) or `smtps://user:pass@host:465` (implicit TLS).',
  },
  relayConnections: {
    env: 'SEALPOST_RELAY_CONNECTIONS',
    kind: 'integer',
    min: 1,
    max: 1000,
    default: 16,
    doc: 'Most connections each delivery lane of a worker process keeps open to the relay (`relay` transport); deliveries beyond it wait for a connection. The two lanes together open at most twice this many.',
  },
  tlsVerify: {
    env: 'SEALPOST_TLS_VERIFY',
    kind: 'boolean',
    default: true,
    doc: 'Verify the certificate of the next hop when delivering over TLS. Turning it off still encrypts but accepts any certificate.',
  },
  mxPort: {
    env: 'SEALPOST_MX_PORT',
    kind: 'integer',
    min: 1,
    max: 65535,
    default: 25,
    doc: 'The port the `mx` transport connects to on MX hosts.',
  },
  mxHostConcurrency: {
    env: 'SEALPOST_MX_HOST_CONCURRENCY',
    kind: 'integer',
    min: 1,
    max: 1000,
    default: 5,
    doc: 'Most connections the `mx` transport holds open at once to one mail host, per lane of each worker process; deliveries beyond it wait for a connection to that host.',
  },
  heloName: {
    env: 'SEALPOST_HELO_NAME',
    kind: 'string',
    doc: 'The name this server gives in EHLO when delivering. Empty means the host name of the machine.',
  },
  deliveryRetrySchedule: {
    env: 'SEALPOST_DELIVERY_RETRY_SCHEDULE',
    kind: 'durations',
    default: '1m,5m,15m,30m,1h,2h,4h,8h,8h',
    doc: 'Waits between delivery attempts after a temporary failure (4xx, timeout, connection failure), as a comma-separated list of durations (`500ms`, `30s`, `5m`, `2h`). After the last, the recipient fails permanently.',
  },
  renderThreads: {
    env: 'SEALPOST_RENDER_THREADS',
    kind: 'integer',
    min: 0,
    max: 64,
    default: 1,
    doc: 'Threads of each worker process that render and DKIM-sign outgoing copies, beside the event loop that speaks SMTP and records outcomes; started with the first delivery, so a process that delivers nothing starts none. Each costs about 40 MB of memory under load. `0` renders on the event loop. More than one pays off only with more than two cores.',
  },
  deliveryConcurrency: {
    env: 'SEALPOST_DELIVERY_CONCURRENCY',
    kind: 'integer',
    min: 1,
    max: 1000,
    default: 32,
    doc: 'Transactional deliveries each worker process runs at once.',
  },
  marketingConcurrency: {
    env: 'SEALPOST_MARKETING_CONCURRENCY',
    kind: 'integer',
    min: 1,
    max: 1000,
    default: 128,
    doc: 'Marketing deliveries each worker process runs at once, in a lane of their own so campaigns never delay transactional mail. While API requests come in to the same process (`sealpost start` with the api and worker roles together), at most 8.',
  },
  marketingSendRate: {
    env: 'SEALPOST_MARKETING_SEND_RATE',
    kind: 'integer',
    min: 0,
    default: 0,
    doc: 'Most marketing emails each worker process sends per second (campaigns and drips together); 0 sends as fast as the marketing lane runs.',
  },
  deliveryTimeoutMs: {
    env: 'SEALPOST_DELIVERY_TIMEOUT_MS',
    kind: 'integer',
    min: 100,
    default: 60000,
    doc: 'How long a delivery waits for the next hop (connection, greeting, each reply) before the attempt counts as a temporary failure.',
  },
  secureLinkTtlHours: {
    env: 'SEALPOST_SECURE_LINK_TTL_HOURS',
    kind: 'integer',
    min: 1,
    default: 720,
    doc: 'How long the link in a secure notification stays valid, in hours (30 days by default).',
  },
  imageMaxBytes: {
    env: 'SEALPOST_IMAGE_MAX_BYTES',
    kind: 'integer',
    min: 1024,
    max: 20971520,
    default: 5242880,
    doc: 'The largest image the image library accepts, in bytes, before it is resized.',
  },
  contentRetentionDays: {
    env: 'SEALPOST_CONTENT_RETENTION_DAYS',
    kind: 'integer',
    min: 1,
    default: 30,
    doc: 'Message bodies, attachments and captured raw messages of finished messages are purged after this many days; receipts keep their metadata.',
  },
  bulkMaxMessages: {
    env: 'SEALPOST_BULK_MAX_MESSAGES',
    kind: 'integer',
    min: 1,
    max: 10000,
    default: 100,
    doc: 'Most messages one `POST /bulk_messages` request may carry (50 is the recommended batch). More is refused with 400 and nothing is sent.',
  },
  maxRecipientsPerMessage: {
    env: 'SEALPOST_MAX_RECIPIENTS_PER_MESSAGE',
    kind: 'integer',
    min: 1,
    max: 100000,
    default: 1000,
    doc: 'Most recipients one message may name, `recipients`, `cc` and `bcc` together. More is refused with 400 over HTTP and `452` per extra `RCPT TO` over SMTP.',
  },
  authFailuresPerWindow: {
    env: 'SEALPOST_AUTH_FAILURES_PER_WINDOW',
    kind: 'integer',
    min: 0,
    default: 20,
    doc: 'Failed authentications (API keys over HTTP, SMTP AUTH) one client address, or one presented key prefix, may make per 10 minutes before further failures are refused for the rest of the window; failures past a quarter of it are answered after a growing delay. A valid key is never refused by this throttle. 0 turns throttling off.',
  },
  smtpMaxMimeParts: {
    env: 'SEALPOST_SMTP_MAX_MIME_PARTS',
    kind: 'integer',
    min: 1,
    default: 500,
    doc: 'Most parts one multipart of a message received over SMTP may have, and most attachments in all; more is refused permanently with `554`.',
  },
  ...DOOR_KEYS,
} as const satisfies Record<string, KeySpec>;

/** The environment variable naming an optional JSON configuration file. */
export const CONFIG_FILE_ENV = 'SEALPOST_CONFIG_FILE';

type KeyValue<K> = K extends { kind: 'integer' }
  ? number
  : K extends { kind: 'durations' }
    ? readonly number[]
    : K extends { kind: 'proxies' }
      ? readonly string[]
      : K extends { kind: 'boolean' }
        ? boolean
        : K extends { kind: 'enum'; values: readonly (infer V)[] }
          ? V
          : string;

/** The validated, frozen configuration passed down from start. */
export type Config = {
  readonly [P in keyof typeof KEYS]: (typeof KEYS)[P] extends { default: string | number | boolean }
    ? KeyValue<(typeof KEYS)[P]>
    : KeyValue<(typeof KEYS)[P]> | undefined;
};
