/** The consent basis the importer chose for the people of an import (null for imports from before, or by command). */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('subscriber_imports').addColumn('consent_basis', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('subscriber_imports').dropColumn('consent_basis').execute();
}
