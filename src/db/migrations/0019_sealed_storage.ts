/**
 * Sealed message content is ciphertext: it never compresses. PostgreSQL tries to compress every value of a row longer
 * than about 2 KB before moving it out of line, which for a message of a few kilobytes costs CPU on every accept for
 * nothing. The content column is stored EXTERNAL: moved out of line when needed, never compressed. SQLite does not
 * compress; it has nothing to change.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres')
    await sql`alter table messages alter column content set storage external`.execute(db);
}

export async function down(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres')
    await sql`alter table messages alter column content set storage extended`.execute(db);
}
