/**
 * The bytes nodemailer's MIME tree streams (`MimeNode.build()`), written without streams: each node's headers, its
 * content through the same encoder the node would pipe it through, its children between the same boundary lines, and
 * the whole through the same final newline and line-ending transforms. The encoders and transforms are nodemailer's
 * own, run over the whole input at once (their output does not depend on how the input is split), so the result is
 * the tree's own, byte for byte. Streaming costs more than composing: for a campaign copy of a few kilobytes the
 * stream pipeline took most of the composer's CPU time, as much for bodies of one character as for whole ones.
 * A tree this does not cover (content from a stream, a file or a URL, raw nodes, transforms) is built by the tree.
 */
import type { Transform } from 'node:stream';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs/index.js';
import type MimeNode from 'nodemailer/lib/mime-node/index.js';
import { onFirstUse } from '../on-first-use.ts';

type TransformClass = new (options?: object) => Transform;
const qpEncoder = onFirstUse<{ Encoder: TransformClass }>('nodemailer/lib/qp/index.js');
const base64Encoder = onFirstUse<{ Encoder: TransformClass }>('nodemailer/lib/base64/index.js');
const lastNewline = onFirstUse<{ default: TransformClass }>('nodemailer/lib/mime-node/last-newline.js');
const windowsLineEnds = onFirstUse<{ default: TransformClass }>('nodemailer/lib/mime-node/le-windows.js');

/** The parts of a node the stream reads, some of them not in the typings. */
interface Node {
  content?: unknown;
  multipart?: string | false;
  boundary?: string | false;
  contentType?: string;
  childNodes: Node[];
  newline?: string;
  _raw?: unknown;
  _transforms: unknown[];
  _processFuncs: unknown[];
  getTransferEncoding(): string | false;
  buildHeaders(): string;
}

/** What `root.build()` resolves to. */
export function buildMime(root: MimeNode): Promise<Buffer> {
  const raw = buildMimeSync(root);
  return raw ? Promise.resolve(raw) : root.build();
}

/** What `root.build()` would resolve to, written at once; undefined for a tree this does not cover. */
export function buildMimeSync(root: MimeNode): Buffer | undefined {
  const node = root as unknown as Node;
  // The tree's `newline` option: none (the composer's default) leaves line ends as they are; Windows ones end every
  // line in CRLF; Unix ones are left to the tree.
  const newline = node.newline ? String(node.newline).toLowerCase() : '';
  const windows = ['win', 'windows', 'dos', '\r\n'].includes(newline);
  const chunks: Buffer[] = [];
  if (
    node._transforms.length > 0 ||
    node._processFuncs.length > 0 ||
    (newline && !windows) ||
    !write(node, chunks)
  )
    return undefined;
  const raw = through(new (lastNewline().default)(), chunks);
  return windows ? through(new (windowsLineEnds().default)(), [raw]) : raw;
}

/** Appends what the node streams (headers, content, children) to `out`; false for a node this does not cover. */
function write(node: Node, out: Buffer[]): boolean {
  const { content } = node;
  if (node._raw || (content && typeof content !== 'string' && !Buffer.isBuffer(content))) return false;
  // The order of the stream: the encoding is read before the headers are built.
  const encoding = node.getTransferEncoding();
  out.push(Buffer.from(node.buildHeaders() + '\r\n\r\n'));
  if (content) {
    const bytes = typeof content === 'string' ? Buffer.from(content) : (content as Buffer);
    if (encoding === 'base64') out.push(through(new (base64Encoder().Encoder)({}), [bytes]));
    else if (encoding === 'quoted-printable')
      out.push(
        through(new (qpEncoder().Encoder)({ binary: !/^text\//i.test(node.contentType ?? '') }), [bytes]),
      );
    else out.push(bytes);
  }
  if (!node.multipart) return true;
  for (const [i, child] of node.childNodes.entries()) {
    out.push(Buffer.from(`${i > 0 ? '\r\n' : ''}--${String(node.boundary)}\r\n`));
    if (!write(child, out)) return false;
  }
  out.push(Buffer.from(`\r\n--${String(node.boundary)}--\r\n`));
  return true;
}

/** What `transform` outputs for `input` written to it in one piece and ended, run synchronously. */
function through(transform: Transform, input: Buffer[]): Buffer {
  const output: Buffer[] = [];
  transform.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk !== null && chunk !== undefined)
      output.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : (chunk as Buffer));
    return true;
  };
  const fail = (err?: Error | null) => {
    if (err) throw err;
  };
  const whole = input.length === 1 ? input[0]! : Buffer.concat(input);
  if (whole.length > 0) transform._transform(whole, 'buffer' as BufferEncoding, fail);
  transform._flush?.(fail);
  return Buffer.concat(output);
}

/**
 * The transfer encoding nodemailer's composer would choose for a text body, chosen without the composer's detection,
 * which collects every letter of the body into an array to count them (a few percent of a delivery's CPU, and as much
 * again in garbage): quoted-printable when ASCII letters outnumber control and non-ASCII characters, base64 otherwise.
 * Undefined for plain ASCII text with short lines, which the composer sends as it is.
 */
export function transferEncoding(content: string): 'quoted-printable' | 'base64' | undefined {
  if (mimeFuncs.isPlainText(content) && !mimeFuncs.hasLongerLines(content, 76)) return undefined;
  return countedEncoding(content);
}

/** The encoding of a text body that cannot go as it is, chosen as the composer chooses it (see transferEncoding). */
export function countedEncoding(content: string): 'quoted-printable' | 'base64' {
  let letters = 0;
  let others = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) letters++;
    else if (c <= 0x08 || c === 0x0b || c === 0x0c || (c >= 0x0e && c <= 0x1f) || c >= 0x80) others++;
  }
  return others < letters ? 'quoted-printable' : 'base64';
}
