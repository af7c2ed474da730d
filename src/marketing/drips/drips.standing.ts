/** Whether a drip may still mail a subscriber: its address, and its standing on the drip's list. */
import type { Queryable } from '../../db/types.ts';
import { subscriberReachable } from '../deliveries/deliveries.service.ts';
import { subscriberEmail } from './drips.repository.ts';

/** The subscriber's email and whether it may still be mailed on the list (subscribed globally and on the list). */
export async function subscriberStanding(
  db: Queryable,
  subscriberId: number,
  listId: number | null,
): Promise<{ email: string; subscribed: boolean } | undefined> {
  const email = await subscriberEmail(db, subscriberId);
  return email === undefined
    ? undefined
    : { email, subscribed: await subscriberReachable(db, subscriberId, listId) };
}
