/** SQL of the event log (`email_events`): appending one event. The webhook outbox is the only caller. */
import type { Insertable } from 'kysely';
import type { EmailEventsTable, Queryable } from '../db/types.ts';
import { precompile } from '../db/precompiled.ts';

// Every delivery outcome, open and click appends an event, so the insert is compiled once (see db/precompiled.ts).
const insertEventQuery = precompile((db, e: Required<Omit<Insertable<EmailEventsTable>, 'id'>>) =>
  db
    .insertInto('email_events')
    .values({
      customer_id: e.customer_id,
      message_id: e.message_id,
      recipient_id: e.recipient_id,
      event: e.event,
      data: e.data,
      created_at: e.created_at,
    })
    .returning('id'),
);

/** Inserts an event row and returns its id. */
export async function insertEventRow(db: Queryable, row: Insertable<EmailEventsTable>): Promise<number> {
  const { rows } = await insertEventQuery(db, { ...row, recipient_id: row.recipient_id ?? null });
  return rows[0]!.id;
}
