/** Names of the delivery queues: one lane per kind of traffic, so campaigns never delay transactional mail. */
export const DELIVERY_QUEUES = { transactional: 'email.transactional', marketing: 'email.marketing' } as const;
export type Lane = keyof typeof DELIVERY_QUEUES;

/** The payload of a delivery work row: one recipient of one message. */
export interface DeliveryJob {
  recipientId: number;
}
