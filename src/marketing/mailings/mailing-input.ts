/** Checks and normal forms of campaign mailing input: subject, content parts, editor type, sender, and the subject search. */
import vm from 'node:vm';
import { AppError } from '../../errors/app-error.ts';
import { parseMailbox } from '../../mail/addresses.ts';
import { checkTemplate } from './personalise.ts';

/** Mailing fields as a create or a change sends them; absent fields are undefined. */
export interface MailingInput {
  subject?: string;
  html_part?: string;
  text_part?: string;
  template_type?: string;
  from_email?: string;
  from_name?: string;
  /** `Name <address>`: an alternative to from_email and from_name. */
  from?: string;
  /** A block document; rendered into html_part and text_part (blocks/blocks.service.ts). Null drops it. */
  content_blocks?: unknown;
}

/** Clean values of the fields that were sent. */
export interface MailingFields {
  subject?: string;
  subject_key?: string;
  html_part?: string;
  text_part?: string;
  template_type?: string;
  from_email?: string;
  from_name?: string;
  content_blocks?: string | null;
}

/** The longest subject, in characters. */
export const MAX_SUBJECT = 500;
/** The longest content part, in characters. */
export const MAX_PART = 1_000_000;
/** How long a subject search may run before it is refused. */
const SEARCH_TIMEOUT_MS = 250;

const TEMPLATE_TYPE = /^[a-z][a-z0-9_-]{0,31}$/;

const invalid = (field: string, message: string): AppError =>
  new AppError('marketing.mailing_invalid', `campaign_mailing.${field} ${message}`, {
    details: [{ field: `campaign_mailing.${field}`, message }],
  });

/** The subject as stored and its key: trimmed, and lower-cased for the per-account uniqueness. */
export function subjectKeyOf(subject: string): string {
  return subject.trim().toLowerCase();
}

/** Checks the fields that were sent and returns their clean values. Templates are compiled, so a broken one is refused now. */
export function cleanMailingInput(input: MailingInput): MailingFields {
  const out: MailingFields = {};
  if (input.subject !== undefined) {
    const subject = input.subject.trim();
    if (!subject) throw invalid('subject', 'must not be blank');
    if (subject.length > MAX_SUBJECT) throw invalid('subject', `must be at most ${MAX_SUBJECT} characters`);
    if (/[\r\n]/.test(subject)) throw invalid('subject', 'must be one line');
    out.subject = subject;
    out.subject_key = subjectKeyOf(subject);
  }
  for (const part of ['html_part', 'text_part'] as const) {
    const value = input[part];
    if (value === undefined) continue;
    if (value.length > MAX_PART) throw invalid(part, `must be at most ${MAX_PART} characters`);
    out[part] = value;
  }
  if (input.template_type !== undefined) {
    const type = input.template_type.trim().toLowerCase();
    if (!TEMPLATE_TYPE.test(type))
      throw invalid('template_type', 'must be an editor name such as html, quill, bee or text');
    out.template_type = type;
  }
  Object.assign(out, senderOf(input));
  for (const field of ['subject', 'html_part', 'text_part'] as const) {
    const error = out[field] === undefined ? null : checkTemplate(out[field]);
    if (error !== null)
      throw new AppError('marketing.template_invalid', `campaign_mailing.${field} is ${error}`, {
        details: [{ field: `campaign_mailing.${field}`, message: error }],
      });
  }
  return out;
}

/** from_email and from_name, from those fields or from `from`. */
function senderOf(input: MailingInput): Pick<MailingFields, 'from_email' | 'from_name'> {
  const out: Pick<MailingFields, 'from_email' | 'from_name'> = {};
  if (input.from !== undefined && input.from_email === undefined) {
    const box = parseMailbox(input.from);
    if (!box) throw invalid('from', 'is not a valid address');
    out.from_email = box.address;
    if (box.name && input.from_name === undefined) out.from_name = box.name;
  }
  if (input.from_email !== undefined) {
    const box = parseMailbox(input.from_email);
    if (!box || box.name || box.address !== input.from_email.trim())
      throw invalid('from_email', 'is not a valid address');
    out.from_email = box.address;
  }
  if (input.from_name !== undefined) {
    const name = input.from_name.trim();
    if (name.length > 255) throw invalid('from_name', 'must be at most 255 characters');
    if (/[\r\n]/.test(name)) throw invalid('from_name', 'must be one line');
    out.from_name = name;
  }
  return out;
}

/** The search as a case-insensitive regular expression, or 400. */
export function searchPattern(search: string): RegExp {
  try {
    return new RegExp(search, 'i');
  } catch (err) {
    throw new AppError(
      'request.invalid',
      `search is not a valid regular expression: ${(err as Error).message}`,
      {
        details: [{ field: 'search', message: 'is not a valid regular expression' }],
      },
    );
  }
}

const matcher = new vm.Script('subjects.map((s) => pattern.test(s))');
const sandbox = vm.createContext({ subjects: [] as string[], pattern: /(?:)/ });

/**
 * Which texts (mailing subjects, drip names) match: run under a time limit, so that an expression that backtracks without end is refused with 400
 * instead of holding the server.
 */
export function matchSubjects(pattern: RegExp, subjects: string[]): boolean[] {
  sandbox.subjects = subjects;
  sandbox.pattern = pattern;
  try {
    return matcher.runInContext(sandbox, { timeout: SEARCH_TIMEOUT_MS }) as boolean[];
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
    throw new AppError(
      'request.invalid',
      'search took too long to evaluate; use a simpler regular expression',
      {
        details: [{ field: 'search', message: 'is too expensive to evaluate' }],
      },
    );
  } finally {
    sandbox.subjects = [];
  }
}
