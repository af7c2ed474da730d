/** SQL for the secure message page: a recipient found by the hash of its secure link token, with its message. */
import type { Queryable } from '../db/types.ts';

/** The recipient whose secure link token hashes to `tokenHash`, with the message fields the page shows. */
export async function findBySecureTokenHash(db: Queryable, tokenHash: string) {
  return db
    .selectFrom('message_recipients as r')
    .innerJoin('messages as m', 'm.id', 'r.message_id')
    .select([
      'r.id as recipient_id',
      'r.address',
      'r.secure_expires_at',
      'm.id as message_id',
      'm.created_at',
      'm.content',
      'm.content_purged_at',
    ])
    .where('r.secure_token_hash', '=', tokenHash)
    .executeTakeFirst();
}
