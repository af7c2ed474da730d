/**
 * The secure message page: a recipient who got a secure notification instead of the message follows its link,
 * `/s/<token>`. Only the SHA-256 of the token is stored, so a database leak does not give working links.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { openContent, type StoredContent } from '../mail/content.ts';
import { formatMailbox } from '../mail/addresses.ts';
import { rfc2822 } from '../mail/dates.ts';
import { findBySecureTokenHash } from './secure-message.repository.ts';
import { findMarketingBySecureTokenHash } from '../marketing/campaigns/deliveries.repository.ts';
import { loadMarketingItem } from '../marketing/campaigns/delivery.ts';
import { expiredPage, messagePage, notFoundPage, purgedPage } from './secure-message.view.ts';
import type { HtmlPage } from '../http/page.ts';

/** SHA-256 of a secure link token, hex: what `message_recipients.secure_token_hash` holds. */
export function secureTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A downloadable attachment, or an HTML page explaining why there is none. */
export type AttachmentResult =
  { kind: 'file'; fileName: string; contentType: string; bytes: Buffer } | { kind: 'page'; page: HtmlPage };

const TOKEN = /^[A-Za-z0-9._~-]{1,256}$/;
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

type Opened =
  | { kind: 'content'; content: StoredContent; address: string; createdAt: number }
  | { kind: 'page'; page: HtmlPage };

/** Finds the message behind a token and opens its content, or says which page to show instead. */
async function openByToken(ctx: AppContext, token: string, now: number): Promise<Opened> {
  if (!TOKEN.test(token)) return { kind: 'page', page: notFoundPage() };
  const row = await findBySecureTokenHash(ctx.database.db, secureTokenHash(token));
  if (!row) return openMarketing(ctx, secureTokenHash(token), now);
  if (row.secure_expires_at !== null && row.secure_expires_at < now)
    return { kind: 'page', page: expiredPage() };
  if (row.content === null || row.content_purged_at !== null) return { kind: 'page', page: purgedPage() };
  return {
    kind: 'content',
    content: openContent(ctx.sealer, row.message_id, row.content),
    address: row.address,
    createdAt: row.created_at,
  };
}

/** A marketing email behind a secure link: rendered again for its recipient, as it was sent. */
async function openMarketing(ctx: AppContext, tokenHash: string, now: number): Promise<Opened> {
  const row = await findMarketingBySecureTokenHash(ctx.database.db, tokenHash);
  if (!row) return { kind: 'page', page: notFoundPage() };
  if (row.secure_expires_at !== null && row.secure_expires_at < now)
    return { kind: 'page', page: expiredPage() };
  const item = await loadMarketingItem(ctx, row.id);
  if (!item?.content) return { kind: 'page', page: purgedPage() };
  return { kind: 'content', content: item.content, address: item.address, createdAt: row.created_at };
}

/** The page for `/s/<token>`. */
export async function securePage(ctx: AppContext, token: string, now = Date.now()): Promise<HtmlPage> {
  const opened = await openByToken(ctx, token, now);
  if (opened.kind === 'page') return opened.page;
  const c = opened.content;
  return messagePage({
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
  });
}

/** The attachment `index` (from 0) of the message behind a token. */
export async function secureAttachment(
  ctx: AppContext,
  token: string,
  index: string,
  now = Date.now(),
): Promise<AttachmentResult> {
  const opened = await openByToken(ctx, token, now);
  if (opened.kind === 'page') return opened;
  const attachment = /^\d{1,4}$/.test(index) ? opened.content.attachments[Number(index)] : undefined;
  if (!attachment) return { kind: 'page', page: notFoundPage() };
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
