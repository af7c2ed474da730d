/**
 * The kinds of outbound mail, built here once per role and handed to what serves both: the delivery lanes, the tracking
 * routes and the secure page. Transactional first: the secure page asks the kinds in this order.
 */
import type { AppContext } from '../context.ts';
import type { MailKind } from '../delivery/kind.ts';
import { deliveryWork } from '../delivery/delivery.worker.ts';
import { timedTransport } from '../http/pipeline-metrics.ts';
import { transactionalKind } from '../email/mail-kind.ts';
import { TRANSACTIONAL_QUEUE } from '../email/queues.ts';
import { MARKETING_DELIVERY_QUEUE, marketingKind } from '../marketing/deliveries/mail-kind.ts';

/** Transactional and marketing mail over a context. */
export function mailKinds(ctx: AppContext): MailKind[] {
  return [transactionalKind(ctx), marketingKind(ctx)];
}

/** The delivery lane of every kind, each attempt timed in the pipeline metrics. */
export const deliveryLanes = {
  ...deliveryWork({ kinds: mailKinds, transport: timedTransport }),
  queueNames: () => [TRANSACTIONAL_QUEUE, MARKETING_DELIVERY_QUEUE],
};
