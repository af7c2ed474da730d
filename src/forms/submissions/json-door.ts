/** The JSON door of submissions: `{form_data, attachments}` turned into the accept function's input. */
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import type { Component } from '../components/component-types.ts';
import type { SubmissionBody } from '../definitions/forms.schemas.ts';
import { acceptSubmission } from './submissions.service.ts';
import { uploadsFromJson } from './submission-check.ts';

/**
 * Accepts a JSON submission; the Idempotency-Key header (if any) makes a repeat count once. `keyAccount` tells the
 * account of the request's API key, asked only when the form has a bot defence.
 */
export async function acceptJsonSubmission(
  ctx: AppContext,
  formId: string,
  body: SubmissionBody,
  opts: {
    ip: string;
    idempotencyKey?: string | string[];
    keyAccount: () => Promise<number | undefined>;
  },
): Promise<void> {
  const key = Array.isArray(opts.idempotencyKey) ? opts.idempotencyKey[0] : opts.idempotencyKey;
  if (key !== undefined && (key.length === 0 || key.length > 200))
    throw new AppError('request.invalid', 'Idempotency-Key must be 1 to 200 characters', {
      details: [{ field: 'Idempotency-Key', message: 'must be 1 to 200 characters' }],
    });
  const fields = body.form_data ?? {};
  const attachments = (body.attachments ?? []).map((a, i) => {
    const name = a.name ?? a.fileName;
    if (!name)
      throw new AppError('request.invalid', `attachments[${i}] needs a name (or fileName)`, {
        details: [
          { field: `attachments[${i}].name`, message: 'is required (fileName is accepted as its alias)' },
        ],
      });
    return { name, content: a.content, field_name: a.field_name };
  });
  const uploads = (components: Component[]) => uploadsFromJson(components, fields, attachments);
  await acceptSubmission(ctx, formId, {
    fields,
    uploads,
    ip: opts.ip,
    idempotencyKey: key,
    bot: { door: 'json', keyAccount: opts.keyAccount },
  });
}
