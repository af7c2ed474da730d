/**
 * What the drip engine and the preference page use of campaign deliveries, inside their own transactions: queueing a
 * drip step's delivery, what a delivery's subscriber did, whether a subscriber may get a list's mail, and the delivery
 * a signed link names with the content it was sent from. The SQL stays in this room's repositories.
 *
 * Campaign sends use the same lane: its queue and work rows, and releasing a send's parked deliveries; and they share
 * with their deliveries the send's counters, its completion once every delivery settled, and the state the gate locks.
 */
export { findDeliveryRow, findTemplateSource, subscriberReachable } from './deliveries.repository.ts';
export { deliveryEngagement, enqueueDripDelivery, MARKETING_DELIVERY_QUEUE } from './queue.repository.ts';
export { enqueueDeliveries, requeueParked } from './queue.repository.ts';
export { bumpCampaign, finishIfSettled, lockSendState } from './send-progress.repository.ts';
