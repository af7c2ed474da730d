/** Tables of the console and the audit trail: users, sessions, one-time links, sign-in throttles, account security, audit log. */
import type { Generated } from 'kysely';

/** A console role: what a user may do in their account. */
export type UserRole = 'owner' | 'admin' | 'editor' | 'viewer';

export interface UsersTable {
  id: string;
  customer_id: number;
  /** Lower-cased; unique across the installation (people sign in by email alone). */
  email: string;
  role: UserRole;
  can_read_protected: number;
  operator: number;
  /** `scrypt$N$r$p$salt$hash`; null until the user sets a password through a one-time link. */
  password_hash: string | null;
  /** Sealed with the master key. */
  totp_secret: string | null;
  totp_enabled_at: number | null;
  /** The TOTP time step (Unix seconds / 30) of the last code accepted; a code of this step or an earlier one is refused. */
  totp_last_step: number | null;
  failed_attempts: number;
  locked_until: number | null;
  last_sign_in_at: number | null;
  disabled_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A form posted on an expired session: its fields sealed for the user who posted it, kept until `expires_at`. */
export interface ConsoleDraftsTable {
  /** Random; in the address the user is sent back to. */
  id: string;
  user_id: string;
  /** The form's action, where the fields belong. */
  path: string;
  /** The fields as JSON, sealed with the master key (bound to the id). */
  sealed: string;
  created_at: number;
  expires_at: number;
}

/** A secret shown once on a console page named by a random token; the row is found by the token's SHA-256. */
export interface ConsoleRevealsTable {
  id: string;
  /** The session (and so the user) the page was made for; no one else sees it. */
  session_id: string;
  /** What the secret is: `api_key`, `webhook_secret` or `recovery_codes`. */
  kind: string;
  /** The secret and what the page says about it, sealed with the master key; null once shown or expired. */
  sealed: string | null;
  created_at: number;
  /** After this the page no longer shows the secret. */
  expires_at: number;
  shown_at: number | null;
}

/** One recovery code of a user's two-factor sign-in: only its hash is kept; it works once. */
export interface UserRecoveryCodesTable {
  /** Random. */
  id: string;
  user_id: string;
  /** The code's first two characters, so a typed code is hashed against one row, not all of them. */
  lookup: string;
  /** The code's scrypt hash (`users/passwords.ts`). */
  code_hash: string;
  created_at: number;
  /** When it was used to sign in; null while it still works. */
  used_at: number | null;
}

export interface ConsoleSessionsTable {
  /** SHA-256 of the cookie token, hex. The token itself is never stored. */
  id: string;
  user_id: string;
  /** `active`, or `second_factor` while the TOTP code is still to be given. */
  state: 'active' | 'second_factor';
  csrf_token: string;
  /** The account an operator is looking at, when not their own. */
  acting_customer_id: number | null;
  /** JSON `{kind, text}` shown once on the next page. */
  flash: string | null;
  ip: string | null;
  created_at: number;
  last_seen_at: number;
  /** The absolute end of the session, whatever its activity. */
  expires_at: number;
}

export interface UserTokensTable {
  /** SHA-256 of the link token, hex. */
  id: string;
  user_id: string;
  purpose: 'set_password' | 'reset' | 'invite';
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface SignInThrottlesTable {
  /** `email:<address>` or `ip:<address>`. */
  key: string;
  window_start: number;
  failures: number;
  locked_until: number | null;
}

export interface AccountSecurityTable {
  customer_id: number;
  require_totp: number;
  updated_at: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  /** Null for installation-wide entries. */
  customer_id: number | null;
  actor_type: 'user' | 'key' | 'recipient' | 'system';
  actor_id: string;
  action: string;
  target: string;
  ip: string | null;
  at: number;
  /** JSON object. */
  detail: string;
}
