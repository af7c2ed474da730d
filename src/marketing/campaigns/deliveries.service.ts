/**
 * What the drip engine and the preference page use of campaign deliveries, inside their own transactions: queueing a
 * drip step's delivery, what a delivery's subscriber did, whether a subscriber may get a list's mail, and the delivery
 * a signed link names with the content it was sent from. The SQL stays in this room's repositories.
 */
export { findDeliveryRow, findTemplateSource, subscriberReachable } from './deliveries.repository.ts';
export { deliveryEngagement, enqueueDripDelivery, MARKETING_DELIVERY_QUEUE } from './queue.repository.ts';
