/**
 * Campaign send routes under both marketing prefixes: `POST /campaign_mailing_sends` (now), `POST
 * /campaign_mailing_schedules` (at `send_at`), the scheduled sends and their cancellation, and one send's progress with
 * pause and resume.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { AppError } from '../../errors/app-error.ts';
import { parseZonedTimestamp } from '../../mail/dates.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import { Empty, IdValue, IntId, NullableIntId, Uuid } from '../lists/lists.schemas.ts';
import { CAMPAIGN_COUNTER_SCHEMA } from '../counters.ts';
import {
  cancelSchedule,
  createSend,
  pauseSend,
  requireSend,
  resumeSend,
  schedulesOf,
} from './sends.service.ts';
import { sendViewOf, sendViews, type SendView } from './send-view.ts';
import type { SendRow } from './sends.repository.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';

const Emails = Type.Array(Type.String({ maxLength: 320 }), { maxItems: 1000 });
const Text = (max: number) => Type.String({ maxLength: max });

const SendBody = Type.Object(
  {
    campaign_mailing_id: IdValue,
    dynamic_list_id: Type.Optional(Type.Union([IdValue, Type.Null()])),
    campaign_mailing_send: Type.Object(
      {
        subscription_list_id: Type.Optional(IdValue),
        dynamic_list_id: Type.Optional(Type.Union([IdValue, Type.Null()])),
        from_email: Type.Optional(Text(320)),
        from_name: Type.Optional(Text(300)),
        sender_email: Type.Optional(Text(320)),
        customer_name: Type.Optional(Text(300)),
        subject: Type.Optional(Text(1000)),
        recipient_emails: Type.Optional(Emails),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

const ScheduleBody = Type.Object(
  {
    send_at: Type.String({ maxLength: 64, description: 'RFC 3339 date-time' }),
    from_email: Type.Optional(Text(320)),
    from_name: Type.Optional(Text(300)),
    sender_email: Type.Optional(Text(320)),
    subscription_list_id: Type.Optional(IdValue),
    subject: Type.Optional(Text(1000)),
    campaign_mailing_id: Type.Optional(IdValue),
    dynamic_list_id: Type.Optional(
      Type.Union([IdValue, Type.Null()], { description: 'Narrows the list to a dynamic list' }),
    ),
    recipient_emails: Type.Optional(Emails),
    customer_name: Type.Optional(Text(300)),
  },
  { additionalProperties: true },
);

const ScheduleAnswer = Type.Object({
  send_at: Type.String(),
  send_at_timestamp: Type.String(),
  jid: Type.String(),
});

/** A send in its envelope. */
export const SendSchema = Type.Object({
  id: IntId,
  uuid: Uuid,
  type: Type.Literal('campaign_mailing_send'),
  attributes: Type.Object({
    campaign_mailing_id: IntId,
    subscription_list_id: NullableIntId,
    subscription_list_name: Type.String(),
    state: Type.String({ description: 'scheduled, expanding, sending, paused, sent or cancelled' }),
    jid: Type.String(),
    send_at: Type.String(),
    sent_at: Type.Union([Type.String(), Type.Null()]),
    finished_at: Type.Union([Type.String(), Type.Null()]),
    audience_count: Type.Integer(),
    ...CAMPAIGN_COUNTER_SCHEMA,
  }),
});

function parseSendAt(text: string): number {
  const ms = parseZonedTimestamp(text);
  if (Number.isNaN(ms))
    throw new AppError(
      'request.invalid',
      'send_at: must be an RFC 3339 date-time with a time zone, e.g. 2026-05-01T15:00:00Z',
      {
        details: [{ field: 'send_at', message: 'must be an RFC 3339 date-time' }],
      },
    );
  return ms;
}

const scheduleAnswer = (s: SendRow) => ({
  send_at: new Date(Number(s.send_at)).toISOString(),
  send_at_timestamp: String(Math.floor(Number(s.send_at) / 1000)),
  jid: s.jid,
});

/** Names the send a start or schedule made: its integer id and its UUID (the answer's body is the spec's). */
function announceSend(reply: FastifyReply, send: SendRow): void {
  reply.header('sealpost-campaign-mailing-send-id', String(send.id));
  reply.header('sealpost-campaign-mailing-send-uuid', send.uuid);
}

/** Registers the send routes. */
export function sendRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    startRoutes(app, ctx, prefix);
    scheduleRoutes(app, ctx, prefix);
    oneSendRoutes(app, ctx, prefix);
  }
}

/** Starting a send: now, or at `send_at`. */
function startRoutes(app: TypedApp, ctx: AppContext, prefix: string): void {
  const common = marketingSchemaBase(prefix);
  app.post(
    `${prefix}/campaign_mailing_sends`,
    {
      schema: {
        ...common,
        summary: 'Send a campaign mailing to a list now',
        body: SendBody,
        response: { 200: Empty, ...MARKETING_ERRORS },
      },
    },
    async (req, reply) => {
      const b = req.body.campaign_mailing_send;
      const send = await createSend(ctx, principalOf(req, 'marketing').customerId, {
        mailingId: req.body.campaign_mailing_id,
        listId: b.subscription_list_id,
        dynamicListId: b.dynamic_list_id ?? req.body.dynamic_list_id,
        fromEmail: b.from_email,
        fromName: b.from_name,
        senderEmail: b.sender_email,
        customerName: b.customer_name,
        subject: b.subject,
        recipientEmails: b.recipient_emails,
      });
      announceSend(reply, send);
      return {};
    },
  );
  app.post(
    `${prefix}/campaign_mailing_schedules`,
    {
      schema: {
        ...common,
        summary:
          'Schedule a campaign mailing (named by campaign_mailing_id, or by its subject) to a list at send_at',
        body: ScheduleBody,
        response: { 200: Type.Object({ data: ScheduleAnswer }), ...MARKETING_ERRORS },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const send = await createSend(ctx, principalOf(req, 'marketing').customerId, {
        mailingId: b.campaign_mailing_id,
        subject: b.subject,
        listId: b.subscription_list_id,
        dynamicListId: b.dynamic_list_id,
        fromEmail: b.from_email,
        fromName: b.from_name,
        senderEmail: b.sender_email,
        customerName: b.customer_name,
        recipientEmails: b.recipient_emails,
        sendAt: parseSendAt(b.send_at),
      });
      announceSend(reply, send);
      return { data: scheduleAnswer(send) };
    },
  );
}

/** The scheduled sends and the cancellation of one before its time. */
function scheduleRoutes(app: TypedApp, ctx: AppContext, prefix: string): void {
  const common = marketingSchemaBase(prefix);
  app.get(
    `${prefix}/campaign_mailing_schedules`,
    {
      schema: {
        ...common,
        summary: 'Sends still waiting for their time, soonest first',
        response: { 200: Type.Object({ data: Type.Array(SendSchema) }), ...MARKETING_ERRORS },
      },
    },
    async (req) => ({
      data: await sendViews(
        ctx.database.reader,
        await schedulesOf(ctx, principalOf(req, 'marketing').customerId),
      ),
    }),
  );
  app.delete(
    `${prefix}/campaign_mailing_schedules/:jid`,
    {
      schema: {
        ...common,
        summary: 'Cancel a scheduled send before its time',
        params: Type.Object({ jid: Type.String({ maxLength: 64 }) }, { additionalProperties: true }),
        response: { 200: Type.Object({ data: SendSchema }), ...MARKETING_ERRORS },
      },
    },
    async (req) => ({
      data: await sendViewOf(
        ctx.database.reader,
        await cancelSchedule(ctx, principalOf(req, 'marketing').customerId, req.params.jid),
      ),
    }),
  );
}

/** One send with its state and counters, and pausing and resuming it. */
function oneSendRoutes(app: TypedApp, ctx: AppContext, prefix: string): void {
  const common = marketingSchemaBase(prefix);
  const one = (summary: string, run: (customerId: number, id: string) => Promise<SendRow>) => ({
    schema: {
      ...common,
      summary,
      params: Type.Object({ id: Type.String({ maxLength: 40 }) }, { additionalProperties: true }),
      response: { 200: Type.Object({ data: SendSchema }), ...MARKETING_ERRORS },
    },
    handler: async (req: { params: { id: string } }, customerId: number): Promise<{ data: SendView }> => ({
      data: await sendViewOf(ctx.database.reader, await run(customerId, req.params.id)),
    }),
  });
  const show = one('One send with its state and counters', (c, id) =>
    requireSend(ctx.database.reader, c, id),
  );
  app.get(`${prefix}/campaign_mailing_sends/:id`, { schema: show.schema }, (req) =>
    show.handler(req, principalOf(req, 'marketing').customerId),
  );
  const pause = one('Pause a running send: no new email starts until it is resumed', (c, id) =>
    pauseSend(ctx, c, id),
  );
  app.post(`${prefix}/campaign_mailing_sends/:id/pause`, { schema: pause.schema }, (req) =>
    pause.handler(req, principalOf(req, 'marketing').customerId),
  );
  const resume = one('Resume a paused send', (c, id) => resumeSend(ctx, c, id));
  app.post(`${prefix}/campaign_mailing_sends/:id/resume`, { schema: resume.schema }, (req) =>
    resume.handler(req, principalOf(req, 'marketing').customerId),
  );
}
