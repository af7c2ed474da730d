/** The transactional send operations behind the HTTP routes: single, bulk and templated sends. */
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { Principal } from '../accounts/keys.service.ts';
import { AppError } from '../errors/app-error.ts';
import { digestStandIns } from '../mail/held-attachments.ts';
import {
  normalizeMessage,
  normalizeTemplatedMessage,
  releaseAttachments,
  trackingOptions,
  type NormalizedMessage,
} from './message-input.ts';
import { refuseIfAllSuppressed, submitMessages, type SubmitOptions } from './submit.ts';
import type { BulkBody, MessageBody, SendBody, SendResponse, TemplatedBody } from './email.schemas.ts';
import { renderTemplate } from './templates.service.ts';

/** The Idempotency-Key of a request, bound to a hash of what was asked. */
export function idempotencyOf(
  key: string | undefined,
  op: string,
  body: unknown,
): SubmitOptions['idempotency'] {
  if (!key) return undefined;
  if (key.length > 255)
    throw new AppError('request.invalid', 'Idempotency-Key must be at most 255 characters');
  return {
    key,
    requestHash: createHash('sha256')
      .update(op)
      .update('\0')
      .update(JSON.stringify(body, digestStandIns))
      .digest('hex'),
  };
}

const submitter = (p: Principal) => ({ customerId: p.customerId, domain: p.domain });

/** Normalizes a message of the request and empties the request's attachments, handing them to the normalized message. */
function takeMessage(m: MessageBody, path?: string): NormalizedMessage {
  const message = normalizeMessage(m, path);
  releaseAttachments(m);
  return message;
}

/** POST /messages */
export async function sendMessage(
  ctx: AppContext,
  principal: Principal,
  body: SendBody,
  idempotencyKey?: string,
): Promise<SendResponse> {
  const idempotency = idempotencyOf(idempotencyKey, 'messages', body);
  const message = takeMessage(body.data.message);
  const [response] = await submitMessages(ctx, submitter(principal), [message], {
    source: 'api',
    tracking: trackingOptions(body.data),
    idempotency,
  });
  return refuseIfAllSuppressed(response!);
}

/** POST /bulk_messages: every message is checked first; one bad message rejects the request and nothing is sent. */
export async function sendBulk(
  ctx: AppContext,
  principal: Principal,
  body: BulkBody,
  idempotencyKey?: string,
): Promise<{ messages: SendResponse[] }> {
  const max = ctx.config.bulkMaxMessages;
  if (body.data.messages.length > max)
    throw new AppError(
      'email.bulk_too_large',
      `data.messages holds ${body.data.messages.length} messages; at most ${max} are accepted per request (50 recommended)`,
    );
  const paths = body.data.messages.map((_, i) => `data.messages[${i}]`);
  const idempotency = idempotencyOf(idempotencyKey, 'bulk_messages', body);
  const messages = body.data.messages.map((m, i) => takeMessage(m, paths[i]));
  const responses = await submitMessages(ctx, submitter(principal), messages, {
    source: 'api',
    tracking: trackingOptions(body.data),
    idempotency,
    paths,
  });
  return { messages: responses };
}

/** POST /templated_messages: renders the named template with the values, then sends like /messages. */
export async function sendTemplated(
  ctx: AppContext,
  principal: Principal,
  body: TemplatedBody,
  idempotencyKey?: string,
): Promise<SendResponse> {
  const rendered = await renderTemplate(
    ctx,
    principal.customerId,
    body.data.template_name,
    body.data.template_values,
    body.data.message.headers.subject,
  );
  const idempotency = idempotencyOf(idempotencyKey, 'templated_messages', body);
  const message = normalizeTemplatedMessage(body.data.message, rendered);
  releaseAttachments(body.data.message);
  const [response] = await submitMessages(ctx, submitter(principal), [message], {
    source: 'template',
    tracking: trackingOptions(body.data),
    idempotency,
  });
  return refuseIfAllSuppressed(response!);
}
