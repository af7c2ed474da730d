/**
 * Reading the reports that come back after delivery: delivery status notifications (RFC 3464, `multipart/report;
 * report-type=delivery-status`) and feedback reports (ARF, RFC 5965, `report-type=feedback-report`). The MIME structure
 * is read by mailparser; the machine-readable part is a series of header blocks (per message, then per recipient),
 * each read by mailsplit's header parser, the one mailparser itself uses.
 */
import type { ParsedMail } from 'mailparser';
import type { Headers } from '@zone-eu/mailsplit';
import { onFirstUse } from '../on-first-use.ts';

/** mailsplit is loaded with mailparser, which reads the report before this does. */
const mailsplit = onFirstUse<{ Headers: typeof Headers }>('@zone-eu/mailsplit');

/** What a report says about the delivery it came back for. */
export type DeliveryReport =
  /** A DSN whose recipient failed (`permanent`, status 5.x.x) or is delayed (status 4.x.x). */
  | { type: 'bounce'; permanent: boolean; status: string; recipient: string | null; response: string }
  /** A feedback report: the recipient marked the message as spam (`abuse`) or as fraud. */
  | { type: 'complaint'; feedbackType: string; recipient: string | null; response: string };

const DSN_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);
const FEEDBACK_TYPE = 'message/feedback-report';
/** Feedback types that are complaints about the mail; `not-spam`, `virus` and `other` are not. */
const COMPLAINTS = new Set(['abuse', 'fraud']);
const STATUS = /^([245])\.\d{1,3}\.\d{1,3}$/;
const RESPONSE_MAX = 500;

/** The options mailparser needs so the delivery-status part stays a part of its own instead of joining the text. */
export const REPORT_PARSE_OPTIONS = { keepDeliveryStatus: true } as const;

/** The report a parsed message carries, or null when it is not a DSN or feedback report that says something to act on. */
export function readReport(mail: ParsedMail): DeliveryReport | null {
  const type = mail.headers.get('content-type') as { value?: string } | undefined;
  if (type?.value?.toLowerCase() !== 'multipart/report') return null;
  for (const part of mail.attachments) {
    const contentType = part.contentType.toLowerCase();
    if (DSN_TYPES.has(contentType)) return readDeliveryStatus(part.content.toString('utf8'));
    if (contentType === FEEDBACK_TYPE) return readFeedback(part.content.toString('utf8'));
  }
  return null;
}

/** The header blocks of a machine-readable report part, separated by empty lines. */
function blocks(text: string): Headers[] {
  const { Headers } = mailsplit();
  return text
    .replace(/\r\n/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((b) => b.trim())
    .filter((b) => b.length > 0)
    .map((b) => new Headers(Buffer.from(`${b.replace(/\n/g, '\r\n')}\r\n`)));
}

/** The address of a `type; address` field (Final-Recipient, Original-Recipient, Original-Rcpt-To may omit the type). */
function addressOf(field: string): string | null {
  const value = field.includes(';') ? field.slice(field.indexOf(';') + 1) : field;
  const address = value.trim().replace(/^<|>$/g, '');
  return address.includes('@') ? address.toLowerCase() : null;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > RESPONSE_MAX ? `${line.slice(0, RESPONSE_MAX - 1)}…` : line;
}

/**
 * The first per-recipient block that failed or is delayed. Its Status field decides: 5.x.x permanent, 4.x.x temporary;
 * the response is the Diagnostic-Code text (`smtp; 550 5.1.1 ...` without its type) or else the status itself.
 */
function readDeliveryStatus(text: string): DeliveryReport | null {
  const [, ...recipients] = blocks(text);
  for (const block of recipients) {
    const action = block.getFirst('action').toLowerCase();
    if (action !== 'failed' && action !== 'delayed') continue;
    const status = STATUS.exec(block.getFirst('status').split(/\s/)[0] ?? '');
    if (!status || status[1] === '2') continue;
    const diagnostic = block.getFirst('diagnostic-code');
    const detail = diagnostic.includes(';') ? diagnostic.slice(diagnostic.indexOf(';') + 1) : diagnostic;
    return {
      type: 'bounce',
      permanent: status[1] === '5',
      status: status[0],
      recipient: addressOf(block.getFirst('final-recipient') || block.getFirst('original-recipient')),
      response: oneLine(detail.trim() || `${status[0]} (${action})`),
    };
  }
  return null;
}

/** A feedback report whose Feedback-Type is a complaint. */
function readFeedback(text: string): DeliveryReport | null {
  const [fields] = blocks(text);
  if (!fields) return null;
  const feedbackType = fields.getFirst('feedback-type').toLowerCase();
  if (!COMPLAINTS.has(feedbackType)) return null;
  const agent = fields.getFirst('user-agent');
  return {
    type: 'complaint',
    feedbackType,
    recipient: addressOf(fields.getFirst('original-rcpt-to')),
    response: oneLine(`feedback report: ${feedbackType}${agent ? ` (${agent})` : ''}`),
  };
}
