/** Scheduled transactional messages under every email prefix: schedule, read, reschedule and cancel. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../http/typed.ts';
import type { AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { recipientCost } from '../http/rate-limit.ts';
import { errorResponses } from '../mail/error-body.ts';
import { EMAIL_PREFIXES } from '../mail/prefixes.ts';
import { schemaBase } from './email.routes.ts';
import { RescheduleBody, ScheduleBody, ScheduledMessage } from './email.schemas.ts';
import { cancelScheduled, getScheduled, reschedule, scheduleMessage } from './schedule.service.ts';

const errors = errorResponses(400, 401, 403, 404, 409, 429);
const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** Registers the schedule routes under every email prefix. */
export function scheduleRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of EMAIL_PREFIXES) {
    const base = schemaBase(prefix);
    const one = { ...base, params: IdParam, response: { 200: ScheduledMessage, ...errors } };
    app.post(
      `${prefix}/schedule`,
      {
        config: { rateCost: recipientCost },
        schema: {
          ...base,
          summary: 'Schedule one message for later (data.scheduled_at)',
          body: ScheduleBody,
          response: { 200: ScheduledMessage, ...errors },
        },
      },
      (req) => scheduleMessage(ctx, principalOf(req, 'email'), req.body),
    );
    app.get(`${prefix}/schedule/:id`, { schema: { ...one, summary: 'Read a scheduled message' } }, (req) =>
      getScheduled(ctx, principalOf(req, 'email').customerId, req.params.id),
    );
    app.patch(
      `${prefix}/schedule/:id`,
      { schema: { ...one, summary: 'Move a scheduled message to a new time', body: RescheduleBody } },
      (req) => reschedule(ctx, principalOf(req, 'email').customerId, req.params.id, req.body),
    );
    app.post(
      `${prefix}/schedule/:id/cancel`,
      { schema: { ...one, summary: 'Cancel a scheduled message' } },
      (req) => cancelScheduled(ctx, principalOf(req, 'email').customerId, req.params.id),
    );
  }
}
