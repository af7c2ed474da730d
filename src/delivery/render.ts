/**
 * Rendering and signing one copy of a message: nodemailer's composer builds the MIME (a copy without attachments is
 * written from the kept frame of its shape, mime-frame.ts), the To and Cc lines prepared for the message (or built
 * here from its addresses) are spliced in, and each DKIM key of the From domain signs the result (see dkim-sign.ts).
 * A job is plain data, so it renders the same on the event loop as on a render thread (render-pool.ts).
 */
import type Mail from 'nodemailer/lib/mailer/index.js';
import type MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type MimeNode from 'nodemailer/lib/mime-node/index.js';
import { onFirstUse } from '../on-first-use.ts';
import { signDkim } from './dkim-sign.ts';
import { buildMime, transferEncoding } from './mime-build.ts';
import { renderFromFrame } from './mime-frame.ts';
import type { DkimKey, Mailbox, StoredAttachment } from './model.ts';

const mailComposer = onFirstUse<typeof MailComposer>('nodemailer/lib/mail-composer/index.js');
const mimeNode = onFirstUse<typeof MimeNode>('nodemailer/lib/mime-node/index.js');

/** One copy to render: the composer's options (without attachments), the attachments as stored, and the keys. */
export interface RenderJob {
  options: Omit<Mail.Options, 'attachments'>;
  attachments?: StoredAttachment[];
  /**
   * The To and Cc lines, in place of the header named `header` (rendered with the value `1`): as lines, or as the
   * addresses to build them from (see addressLines).
   */
  splice?: { header: string; lines: string } | { header: string; to: Mailbox[]; cc: Mailbox[] };
  dkim: DkimKey[];
}

/** The raw, signed copy a job describes. */
export async function renderSigned(job: RenderJob): Promise<Buffer> {
  const raw =
    (!job.attachments && renderFromFrame(job.options)) ||
    (await renderMime({
      ...job.options,
      attachments: job.attachments?.map((a) => ({
        filename: a.fileName,
        contentType: a.contentType,
        content: Buffer.from(a.content, 'base64'),
      })),
    }));
  const { splice: at } = job;
  if (!at) return signDkim(raw, job.dkim);
  return signDkim(splice(raw, at.header, 'lines' in at ? at.lines : addressLines(at.to, at.cc)), job.dkim);
}

// The address node has no parts: its boundary is never written.
const ADDRESS_NODE_BOUNDARY = '0';

/**
 * The folded To and Cc header lines of a message (each ending in CRLF). They are built by the same MIME node the
 * composer uses, so they read exactly as a rendered message's, without rendering one.
 */
export function addressLines(to: readonly Mailbox[], cc: readonly Mailbox[]): string {
  const node = new (mimeNode())('text/plain', { newline: '\r\n', baseBoundary: ADDRESS_NODE_BOUNDARY });
  // Set, so the node does not draw a random one for lines that are dropped anyway.
  node.setHeader('Message-ID', '<addresses@localhost>');
  // The typings list strings only; the node takes address objects as the composer passes them.
  if (to.length > 0) node.setHeader('To', to as never);
  if (cc.length > 0) node.setHeader('Cc', cc as never);
  let keep = false;
  return node
    .buildHeaders()
    .split('\r\n')
    .filter((line) => (keep = /^[ \t]/.test(line) ? keep : /^(To|Cc):/i.test(line)))
    .map((l) => `${l}\r\n`)
    .join('');
}

/** `raw` with the header line `header: 1` replaced by `lines`. */
function splice(raw: Buffer, header: string, lines: string): Buffer {
  const at = raw.indexOf(`${header}: 1\r\n`);
  if (at < 0) throw new Error('composing a message: the address header position was not found');
  return Buffer.concat([raw.subarray(0, at), Buffer.from(lines), raw.subarray(at + header.length + 5)]);
}

/**
 * What nodemailer's composer renders from `options`, byte for byte, with each text part's transfer encoding chosen
 * before the composer would detect it (see transferEncoding), and the tree written without streams (mime-build.ts).
 */
export function renderMime(options: Mail.Options): Promise<Buffer> {
  const root = new (mailComposer())(options).compile();
  presetEncodings(root);
  return buildMime(root);
}

/**
 * Sets the transfer encoding of every text part with string content the composer would encode, as the composer
 * would set it when building the headers. Set on the compiled tree, after the composer's own headers, the header
 * lands where the composer puts it, also when the text part is the message itself.
 */
function presetEncodings(node: MimeNode): void {
  const content = node.content;
  if (
    typeof content === 'string' &&
    !node.getHeader('Content-Transfer-Encoding') &&
    /^text\//i.test(String(node.getHeader('Content-Type') ?? ''))
  ) {
    const encoding = transferEncoding(content);
    if (encoding) node.setHeader('Content-Transfer-Encoding', encoding);
  }
  for (const child of node.childNodes) presetEncodings(child);
}
