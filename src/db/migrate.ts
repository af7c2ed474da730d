/** Schema migrations: the ordered list, applying them, and checking that none is pending. */
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Database, Dialect } from './connect.ts';
import * as m0001 from './migrations/0001_foundation.ts';
import * as m0002 from './migrations/0002_email.ts';
import * as m0003 from './migrations/0003_webhooks.ts';
import * as m0004 from './migrations/0004_forms.ts';
import * as m0005 from './migrations/0005_marketing.ts';
import * as m0006 from './migrations/0006_campaigns.ts';
import * as m0007 from './migrations/0007_drips.ts';
import * as m0008 from './migrations/0008_console.ts';
import * as m0009 from './migrations/0009_suppressions.ts';
import * as m0010 from './migrations/0010_subscriber_imports.ts';
import * as m0011 from './migrations/0011_console_pages.ts';
import * as m0012 from './migrations/0012_form_numbers.ts';
import * as m0013 from './migrations/0013_segments.ts';
import * as m0014 from './migrations/0014_marketing_uuids.ts';
import * as m0017 from './migrations/0017_totp_last_step.ts';
import * as m0018 from './migrations/0018_opt_in.ts';
import * as m0019 from './migrations/0019_sealed_storage.ts';
import * as m0020 from './migrations/0020_ed25519_dkim.ts';
import * as m0021 from './migrations/0021_subscription_ids.ts';
import * as m0022 from './migrations/0022_master_key_check.ts';
import * as m0023 from './migrations/0023_console_drafts.ts';
import * as m0024 from './migrations/0024_console_reveals.ts';
import * as m0025 from './migrations/0025_scheduled_messages.ts';
import * as m0026 from './migrations/0026_submitter_email.ts';
import * as m0027 from './migrations/0027_subscriber_phone_input.ts';
import * as m0028 from './migrations/0028_worker_nodes.ts';
import * as m0029 from './migrations/0029_domain_dev_verified.ts';
import * as m0030 from './migrations/0030_block_documents.ts';
import * as m0031 from './migrations/0031_images.ts';
import * as m0032 from './migrations/0032_brand.ts';
import * as m0033 from './migrations/0033_field_type_uuids.ts';
import * as m0034 from './migrations/0034_import_consent.ts';
import * as m0035 from './migrations/0035_recovery_codes.ts';

interface DialectMigration {
  up(db: Parameters<Migration['up']>[0], dialect: Dialect): Promise<void>;
  down?(db: Parameters<Migration['up']>[0], dialect: Dialect): Promise<void>;
}

/** Every migration, in order. Names sort in the order they apply. */
const MIGRATIONS: Record<string, DialectMigration> = {
  '0001_foundation': m0001,
  '0002_email': m0002,
  '0003_webhooks': m0003,
  '0004_forms': m0004,
  '0005_marketing': m0005,
  '0006_campaigns': m0006,
  '0007_drips': m0007,
  '0008_console': m0008,
  '0009_suppressions': m0009,
  '0010_subscriber_imports': m0010,
  '0011_console_pages': m0011,
  '0012_form_numbers': m0012,
  '0013_segments': m0013,
  '0014_marketing_uuids': m0014,
  '0017_totp_last_step': m0017,
  '0018_opt_in': m0018,
  '0019_sealed_storage': m0019,
  '0020_ed25519_dkim': m0020,
  '0021_subscription_ids': m0021,
  '0022_master_key_check': m0022,
  '0023_console_drafts': m0023,
  '0024_console_reveals': m0024,
  '0025_scheduled_messages': m0025,
  '0026_submitter_email': m0026,
  '0027_subscriber_phone_input': m0027,
  '0028_worker_nodes': m0028,
  '0029_domain_dev_verified': m0029,
  '0030_block_documents': m0030,
  '0031_images': m0031,
  '0032_brand': m0032,
  '0033_field_type_uuids': m0033,
  '0034_import_consent': m0034,
  '0035_recovery_codes': m0035,
};

class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, m] of Object.entries(MIGRATIONS)) {
      out[name] = {
        up: (db) => m.up(db, this.dialect),
        down: m.down ? (db) => m.down!(db, this.dialect) : undefined,
      };
    }
    return out;
  }
}

function migrator(database: Database): Migrator {
  return new Migrator({
    db: database.db,
    provider: new StaticProvider(database.dialect),
  });
}

/** Applies every pending migration; returns the names applied. Throws with the failing migration's error. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const { error, results }: MigrationResultSet = await migrator(database).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Applies or reverts migrations until `name` is the last one applied (upgrades of existing data are tested this way). */
export async function migrateTo(database: Database, name: string): Promise<void> {
  const { error } = await migrator(database).migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/** Names of migrations not yet applied (empty when the schema is current). */
export async function pendingMigrations(database: Database): Promise<string[]> {
  const all = await migrator(database).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
