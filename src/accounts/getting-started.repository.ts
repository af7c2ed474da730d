/** SQL for an account's first steps: one "is there any" query per step, each stopping at its first row. */
import type { Queryable } from '../db/types.ts';

const any = async (q: { executeTakeFirst(): Promise<unknown> }) => (await q.executeTakeFirst()) !== undefined;

/** Whether the account has a verified domain. */
export function hasVerifiedDomain(db: Queryable, customerId: number): Promise<boolean> {
  return any(
    db
      .selectFrom('domains')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('verified', '=', 1)
      .limit(1),
  );
}

/** Whether the account has an API key that is not revoked. */
export function hasLiveApiKey(db: Queryable, customerId: number): Promise<boolean> {
  return any(
    db
      .selectFrom('api_keys')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('revoked_at', 'is', null)
      .limit(1),
  );
}

/** Whether the account ever had a message accepted (through the API, SMTP or a campaign's test email). */
export function hasSentMessage(db: Queryable, customerId: number): Promise<boolean> {
  return any(db.selectFrom('messages').select('id').where('customer_id', '=', customerId).limit(1));
}

/** Whether the account has a published form (active, not deleted). */
export function hasPublishedForm(db: Queryable, customerId: number): Promise<boolean> {
  return any(
    db
      .selectFrom('forms')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('active', '=', 1)
      .where('deleted', '=', 0)
      .limit(1),
  );
}

/** Whether an import of subscribers into a list of the account finished (a dry run does not count). */
export function hasFinishedImport(db: Queryable, customerId: number): Promise<boolean> {
  return any(
    db
      .selectFrom('subscriber_imports')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('state', '=', 'done')
      .limit(1),
  );
}
