/**
 * Judging an attempt: what a transport's answer means for the recipient. 2xx delivers; 5xx fails for good; 4xx,
 * timeouts and connection failures are temporary and retried on the schedule until it runs out, which is permanent too.
 */
import type { RecordedOutcome } from './model.ts';
import type { SendOutcome } from './smtp-client.ts';

/** The receipt's deliveryStatus texts. */
export const DELIVERY_STATUS = {
  processing: 'processing',
  softBounced: 'soft bounced',
  hardBounced: 'hard bounced',
  delivered: 'delivered',
  deliveredSecurely: 'delivered via secure portal',
} as const;

/** An attempt as the engine made it: the transport's answer, and whether a secure notification went instead of the message. */
export interface Attempt {
  outcome: SendOutcome;
  secure: boolean;
  transport: string;
  /** 1 for the first attempt. */
  number: number;
  at: number;
}

/** True when no retry is left after attempt `number`: the schedule holds one wait per retry. */
export function isLastAttempt(number: number, schedule: readonly number[]): boolean {
  return number > schedule.length;
}

/** What the recipient's row and event become after an attempt. */
export function judge(attempt: Attempt, schedule: readonly number[]): RecordedOutcome {
  const { outcome } = attempt;
  const base = {
    response: outcome.response,
    via: attempt.secure ? `${attempt.transport}+secure` : attempt.transport,
    tls: outcome.tls,
    attempts: attempt.number,
    at: attempt.at,
  };
  if (outcome.result === 'accepted')
    return {
      ...base,
      status: 'delivered',
      deliveryStatus: attempt.secure ? DELIVERY_STATUS.deliveredSecurely : DELIVERY_STATUS.delivered,
      event: 'delivered',
    };
  if (outcome.result === 'permanent')
    return {
      ...base,
      status: 'failed',
      deliveryStatus: DELIVERY_STATUS.hardBounced,
      event: 'permanent_failure',
    };
  if (isLastAttempt(attempt.number, schedule))
    return {
      ...base,
      response: `${outcome.response} (gave up after ${attempt.number} attempts)`,
      status: 'failed',
      deliveryStatus: DELIVERY_STATUS.hardBounced,
      event: 'permanent_failure',
    };
  return {
    ...base,
    status: 'deferred',
    deliveryStatus: DELIVERY_STATUS.softBounced,
    event: 'temporary_failure',
  };
}
