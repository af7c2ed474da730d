/** The console and the audit trail: users, sessions, one-time links, sign-in throttles, account security and the audit log. */
import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';
import { serialId } from './columns.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await createUsers(db);
  await createSessionTables(db);
  await createAccountSecurity(db);
  await createAuditLog(db, dialect);
}

/** The console users of each account. */
async function createUsers(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('can_read_protected', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('operator', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('password_hash', 'text')
    .addColumn('totp_secret', 'text')
    .addColumn('totp_enabled_at', 'bigint')
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint')
    .addColumn('last_sign_in_at', 'bigint')
    .addColumn('disabled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_customer_idx').on('users').columns(['customer_id']).execute();
}

/** Console sessions, one-time links (invitations, password resets) and sign-in throttles. */
async function createSessionTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('acting_customer_id', 'integer')
    .addColumn('flash', 'text')
    .addColumn('ip', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('console_sessions_user_idx')
    .on('console_sessions')
    .columns(['user_id'])
    .execute();
  await db.schema
    .createIndex('console_sessions_expiry_idx')
    .on('console_sessions')
    .columns(['expires_at'])
    .execute();

  await db.schema
    .createTable('user_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_tokens_user_idx').on('user_tokens').columns(['user_id']).execute();

  await db.schema
    .createTable('sign_in_throttles')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .execute();
}

/** The security settings of each account. */
async function createAccountSecurity(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_security')
    .addColumn('customer_id', 'integer', (c) => c.primaryKey().references('customers.id').onDelete('cascade'))
    .addColumn('require_totp', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

/** The audit log, indexed by account and by time. */
async function createAuditLog(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await serialId(db.schema.createTable('audit_log'), dialect)
    .addColumn('customer_id', 'integer')
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_log_customer_at_idx')
    .on('audit_log')
    .columns(['customer_id', 'at'])
    .execute();
  await db.schema.createIndex('audit_log_at_idx').on('audit_log').columns(['at']).execute();
}
