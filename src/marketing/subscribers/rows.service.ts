/**
 * The reads and writes of subscribers, memberships and custom field values that the other marketing rooms make inside
 * their own transactions (a send's engagement, the preference page, drips, imports, exports). The SQL stays in this
 * room's repositories; these names are the part of it the others may call.
 */
export {
  addMembers,
  countSubscribers,
  findByEmailKey,
  findByEmailKeys,
  findMembershipState,
  findSubscriber,
  findSubscriberState,
  setMemberUnsubscribed,
  subscribersAfter,
  unsubscribeEverywhere,
  unsubscribeFromList,
  type SubscriberMatch,
} from './subscribers.repository.ts';
export { fieldValuesOf } from './custom-fields.repository.ts';
export { fieldTypesOf, fieldValuesOfMany } from './csv.repository.ts';
export { CONFIRM_QUEUE } from './confirmations.repository.ts';
