/** Tables of the foundation: accounts, domains, API keys, work rows and leases. */
import type { Generated } from 'kysely';

export interface CustomersTable {
  id: Generated<number>;
  username: string;
  created_at: number;
}

export interface DomainsTable {
  id: string;
  customer_id: number;
  name: string;
  verified: number;
  verified_at: number | null;
  verification_token: string;
  dkim_selector: string;
  dkim_public_key: string;
  /** Sealed with the master key. */
  dkim_private_key: string;
  /** The algorithm of the key above: `rsa` or `ed25519`. */
  dkim_algorithm: string;
  /** A second key signing beside the first (the Ed25519 key of a domain that signs with both); null when none. */
  dkim2_selector: string | null;
  dkim2_public_key: string | null;
  /** Sealed with the master key. */
  dkim2_private_key: string | null;
  /** 1 when marked verified without a DNS check (`domain add --verified`): development only. */
  verified_without_dns: number;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  customer_id: number;
  domain_id: string | null;
  key_prefix: string;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string;
  /** Comma-separated scopes: email, forms, marketing. */
  scopes: string;
  description: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** Who created the key: `user:<id>` from the console; null from the command line. */
  created_by: string | null;
}

export interface JobsTable {
  id: Generated<number>;
  queue: string;
  payload: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  attempts: Generated<number>;
  run_at: number;
  lease_until: number | null;
  lease_owner: string | null;
  last_error: string | null;
  unique_key: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

/** The one value sealed with the master key at the first start (row 1), checked at every start. */
export interface MasterKeyCheckTable {
  id: number;
  /** The fingerprint of the key that sealed it: named when another key is refused. */
  fingerprint: string;
  sealed: string;
  created_at: number;
}

/** One running worker's heartbeat: `owner` is its lease owner (`<node>:<pid>:<run>`), `last_seen` its latest beat. */
export interface WorkerNodesTable {
  owner: string;
  node: string;
  started_at: number;
  last_seen: number;
}

export interface LeasesTable {
  name: string;
  owner: string;
  lease_until: number;
}

/** An image of an account's library, served publicly at `/img/<token>.<ext>`. */
export interface ImagesTable {
  id: string;
  customer_id: number;
  /** The unguessable part of the public URL. */
  token: string;
  name: string;
  /** The type of the decoded image (image/png, image/jpeg, image/gif, image/webp). */
  content_type: string;
  width: number;
  height: number;
  /** Bytes of `data`. */
  size: number;
  data: Buffer;
  created_at: number;
}
