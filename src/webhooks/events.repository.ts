/** SQL of the event log (`email_events`): appending one event. The webhook outbox is the only caller. */
import type { Insertable } from 'kysely';
import type { EmailEventsTable, Queryable } from '../db/types.ts';

/** Inserts an event row and returns its id. */
export async function insertEventRow(db: Queryable, row: Insertable<EmailEventsTable>): Promise<number> {
  const { id } = await db.insertInto('email_events').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}
