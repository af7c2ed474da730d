/**
 * The secure message page: a recipient who got a secure notification instead of the message follows its link,
 * `/s/<token>`. Only the SHA-256 of the token is stored, so a database leak does not give working links.
 */
import type { MailKind, SecureCopy } from '../delivery/kind.ts';
import { hashSecureToken } from '../delivery/notification.ts';
import { formatMailbox } from '../mail/addresses.ts';
import { rfc2822 } from '../mail/dates.ts';
import { expiredPage, messagePage, notFoundPage, purgedPage } from './secure-message.view.ts';
import type { HtmlPage } from '../http/page.ts';
import type { Brand } from '../markup/brand.ts';

/** SHA-256 of a secure link token, hex: what each kind keeps in its `secure_token_hash`. */
export const secureTokenHash = hashSecureToken;

/** A downloadable attachment, or an HTML page explaining why there is none. */
export type AttachmentResult =
  { kind: 'file'; fileName: string; contentType: string; bytes: Buffer } | { kind: 'page'; page: HtmlPage };

const TOKEN = /^[A-Za-z0-9._~-]{1,256}$/;
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

type Opened =
  ({ kind: 'content'; customerId: number; target: string } & SecureCopy) | { kind: 'page'; page: HtmlPage };

/** A recipient's read of their secure message, for the audit trail: the page (`part` "page") or an attachment. */
export interface SecureRead {
  customerId: number;
  target: string;
  address: string;
  part: string;
}

/** Records a read before the content is served (handed in by the routes). */
export type ReadRecorder = (read: SecureRead) => Promise<void>;

/** The brand of an account, for the page (handed in by the routes). */
export type BrandLookup = (customerId: number) => Promise<Brand | undefined>;

const NO_BRAND: BrandLookup = async () => undefined;

/** Asks each kind in turn for the delivery behind a token and reads its copy, or says which page to show instead. */
async function openByToken(
  kinds: readonly MailKind[],
  token: string,
  now: number,
  brandOf: BrandLookup = NO_BRAND,
): Promise<Opened> {
  if (!TOKEN.test(token)) return { kind: 'page', page: notFoundPage() };
  const tokenHash = secureTokenHash(token);
  for (const kind of kinds) {
    const link = await kind.secure.find(tokenHash);
    if (!link) continue;
    if (link.expiresAt !== null && link.expiresAt < now)
      return { kind: 'page', page: expiredPage(await brandOf(link.customerId)) };
    const copy = await link.read();
    return copy
      ? { kind: 'content', customerId: link.customerId, target: link.target, ...copy }
      : { kind: 'page', page: purgedPage(await brandOf(link.customerId)) };
  }
  return { kind: 'page', page: notFoundPage() };
}

/** The page for `/s/<token>`. */
export async function securePage(
  kinds: readonly MailKind[],
  token: string,
  brandOf: BrandLookup,
  recordRead: ReadRecorder,
  now = Date.now(),
): Promise<HtmlPage> {
  const opened = await openByToken(kinds, token, now, brandOf);
  if (opened.kind === 'page') return opened.page;
  await recordRead({
    customerId: opened.customerId,
    target: opened.target,
    address: opened.address,
    part: 'page',
  });
  const c = opened.content;
  return messagePage(
    {
      from: formatMailbox(c.from),
      to: opened.address,
      subject: c.subject,
      date: rfc2822(opened.createdAt),
      text: c.text,
      html: c.html,
      attachments: c.attachments.map((a, i) => ({
        name: a.fileName,
        contentType: a.contentType,
        size: Buffer.byteLength(a.content, 'base64'),
        href: `${encodeURIComponent(token)}/attachments/${i}`,
      })),
    },
    await brandOf(opened.customerId),
  );
}

/** The attachment `index` (from 0) of the message behind a token. */
export async function secureAttachment(
  kinds: readonly MailKind[],
  token: string,
  index: string,
  recordRead: ReadRecorder,
  now = Date.now(),
): Promise<AttachmentResult> {
  const opened = await openByToken(kinds, token, now);
  if (opened.kind === 'page') return opened;
  const attachment = /^\d{1,4}$/.test(index) ? opened.content.attachments[Number(index)] : undefined;
  if (!attachment) return { kind: 'page', page: notFoundPage() };
  await recordRead({
    customerId: opened.customerId,
    target: opened.target,
    address: opened.address,
    part: `attachment ${index}`,
  });
  return {
    kind: 'file',
    fileName: attachment.fileName,
    contentType: MIME_TYPE.test(attachment.contentType) ? attachment.contentType : 'application/octet-stream',
    bytes: Buffer.from(attachment.content, 'base64'),
  };
}

/** A Content-Disposition value that makes browsers download the file under its name, in any script. */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
