/**
 * "Send test event": one signed `webhook_test` event posted to one endpoint now, through the dispatcher every delivery
 * goes through (same body shape, headers, signature and attempt log), attempted once and never retried. The event
 * names no message (`source_tracking_id` is a fresh id of no message; subject, from and to are null), so a receiver can
 * check its signature code and its answer without a real send. The attempt is shown with the endpoint's others.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { record, type ChangeBy } from '../audit/audit.service.ts';
import { TEST_EMAIL_EVENT, TEST_EVENT } from './events.ts';
import { insertEventRow } from './events.repository.ts';
import { insertDelivery } from './deliveries.repository.ts';
import { attemptsOf, ownEndpoint, type WebhookAttempt } from './webhooks.service.ts';
import { webhookDispatcher } from './webhooks.worker.ts';
import type { HostLookup } from './url-safety.ts';

/** Posts a test event to an account's endpoint and returns the attempt. Refused for an endpoint switched off or disabled. */
export async function sendTestEvent(
  ctx: AppContext,
  customerId: number,
  id: string,
  by: ChangeBy,
  opts: { lookup?: HostLookup } = {},
): Promise<WebhookAttempt> {
  const endpoint = await ownEndpoint(ctx, customerId, id);
  if (endpoint.active !== 1 || endpoint.disabled_at !== null)
    throw new AppError(
      'webhook.not_active',
      'this endpoint is switched off or disabled; enable it before sending a test event',
    );
  const now = Date.now();
  const uid = randomUUID();
  const deliveryId = await ctx.database.db.transaction().execute(async (trx) => {
    const messageId = randomUUID();
    const eventId = await insertEventRow(trx, {
      customer_id: customerId,
      message_id: messageId,
      recipient_id: null,
      event: TEST_EMAIL_EVENT,
      data: '{}',
      created_at: now,
    });
    const made = await insertDelivery(trx, {
      endpoint_id: id,
      customer_id: customerId,
      event_id: eventId,
      event_name: TEST_EVENT,
      message_id: messageId,
      uid,
      state: 'pending',
      dispatch_seq: 1,
      created_at: now,
      updated_at: now,
    });
    await record(trx, {
      accountId: customerId,
      actor: by.actor,
      action: 'webhook.test',
      target: `webhook:${id}`,
      ip: by.ip,
      detail: { event_id: eventId, sealpost_event_id: uid },
    });
    return made!;
  });
  const dispatcher = webhookDispatcher(ctx, opts.lookup, 1);
  try {
    await dispatcher.postOnce(deliveryId, 1);
  } finally {
    dispatcher.close();
  }
  const attempt = (await attemptsOf(ctx, customerId, id, 50)).find((a) => a.sealpost_event_id === uid);
  if (!attempt) throw new Error(`the test event ${uid} was not attempted`);
  return attempt;
}
