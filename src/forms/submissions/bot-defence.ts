/**
 * A form's bot defence applied to a submission, before anything is checked or stored. The hosted page's post must
 * carry a check token signed for this form that is neither expired nor younger than the form's minimum seconds, and
 * on a proof-of-work form any solution it carries must be right (a post without one, from a browser without
 * JavaScript, is held to the token and the honeypot). The JSON door of a defended form takes submissions made with an
 * API key of the form's own account only. A token used once may only repeat the same answers (a double submit).
 */
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { botDefenceOf, settingsOf } from '../definitions/settings.ts';
import type { FormRow } from '../definitions/forms.service.ts';
import { botKey, issueCheck, readCheck, solves, TOKEN_MAX_AGE_MS } from './bot-check.ts';

/** What a door hands over for the bot defence. */
export type BotEvidence =
  | { door: 'page'; check?: string; solution?: string }
  | { door: 'json'; keyAccount: () => Promise<number | undefined> };

/** Why a submission was refused; sent as `reason` beside the error code. */
export type BotRefusal =
  'missing' | 'forged' | 'expired' | 'too_fast' | 'replayed' | 'wrong_solution' | 'key_required';

/** Clocks of two nodes may differ by this much before a token from the future counts as forged. */
const CLOCK_SKEW_MS = 60_000;

/** The refusal of a submission by the bot defence. */
export function botRefusal(reason: BotRefusal, message: string): AppError {
  return new AppError('form.bot_check_failed', message, { extra: { reason } });
}

/** The reason of a bot-defence refusal, or undefined for any other error. */
export function refusalOf(err: unknown): BotRefusal | undefined {
  return err instanceof AppError && err.code === 'form.bot_check_failed'
    ? (err.extra.reason as BotRefusal)
    : undefined;
}

/** What the hosted page carries for a defended form: the signed token and, for proof of work, the difficulty. */
export function pageCheck(
  ctx: AppContext,
  form: Pick<FormRow, 'id' | 'form_json'>,
  nonce: string,
  now = Date.now(),
): { check: string; difficulty?: number } | undefined {
  const defence = botDefenceOf(settingsOf(form.form_json));
  if (defence.mode === 'off') return undefined;
  const difficulty = defence.mode === 'proof_of_work' ? defence.difficulty : 0;
  return {
    check: issueCheck(botKey(ctx), form.id, difficulty, now, nonce),
    difficulty: difficulty || undefined,
  };
}

/** Applies the form's bot defence; returns the page's nonce (to count a double submit once) or undefined. */
export async function checkBotDefence(
  ctx: AppContext,
  form: FormRow,
  evidence: BotEvidence | undefined,
  now: number,
): Promise<string | undefined> {
  const defence = botDefenceOf(settingsOf(form.form_json));
  if (defence.mode === 'off') return undefined;
  if (evidence?.door === 'json') {
    if ((await evidence.keyAccount()) === form.customer_id) return undefined;
    throw botRefusal(
      'key_required',
      'this form has a bot defence: submit it through its hosted page, or send an API key of its account with the forms scope',
    );
  }
  if (!evidence?.check) throw botRefusal('missing', 'the check token of the hosted page is missing');
  const token = readCheck(botKey(ctx), form.id, evidence.check);
  if (!token || token.issuedAt > now + CLOCK_SKEW_MS)
    throw botRefusal('forged', 'the check token is not one this form issued');
  if (now - token.issuedAt > TOKEN_MAX_AGE_MS)
    throw botRefusal('expired', 'the check token has expired; load the page again');
  const seconds = Math.floor((now - token.issuedAt) / 1000);
  if (seconds < defence.minSeconds)
    throw botRefusal(
      'too_fast',
      `the page was posted ${seconds} s after it was shown; this form needs at least ${defence.minSeconds} s`,
    );
  if (
    defence.mode === 'proof_of_work' &&
    evidence.solution &&
    (token.difficulty < defence.difficulty || !solves(evidence.check, evidence.solution, token.difficulty))
  )
    throw botRefusal('wrong_solution', "the proof of work does not solve the page's challenge");
  return token.nonce;
}
