/**
 * Frames: the composer's compiled MIME tree of a message, kept and reused for the next copies of the same shape (the
 * same sender, reply-to address and header names, the same parts), so a campaign's copies, which differ only in their
 * subject, their header values and their bodies, are composed once per thread instead of once per copy. Each copy
 * sets its own values on the kept tree in the order the composer would set them (header values, subject, Message-ID,
 * date, each part's body and transfer encoding, the boundaries from the copy's own base) and writes it without
 * streams (mime-build.ts), so it is byte for byte what the composer renders from the copy's options. When the copy is
 * written, its bodies and header values are taken off the tree: a frame holds a message's shape, never its content.
 * Options that a frame does not cover (attachments, recipients in the headers, any other composer option, header names
 * the composer sets itself or of other characters than letters, digits and dashes) are composed on their own
 * (render.ts).
 */
import type Mail from 'nodemailer/lib/mailer/index.js';
import type MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type MimeNode from 'nodemailer/lib/mime-node/index.js';
import { LRUCache } from 'lru-cache';
import { onFirstUse } from '../on-first-use.ts';
import { buildMimeSync, countedEncoding } from './mime-build.ts';

const mailComposer = onFirstUse<typeof MailComposer>('nodemailer/lib/mail-composer/index.js');

/** The parts of a node a frame sets, some of them not in the typings. */
interface Node {
  baseBoundary: string;
  boundary?: string | false;
  content?: unknown;
  _hasLongLines: boolean;
  childNodes: Node[];
  _isPlainText: boolean;
  _normalizeHeaderKey(key: unknown): string;
  setContent(content: string): void;
  setHeader(key: string, value: unknown): void;
}

/** A kept tree and where a copy's own values go in it. */
interface Frame {
  root: MimeNode;
  headers: string[];
  subject: boolean;
  text?: Node;
  html?: Node;
  multipart: Node[];
}

/** The options a frame covers; any other makes a copy composed on its own. */
const FRAME_OPTIONS = new Set([
  'from',
  'replyTo',
  'subject',
  'messageId',
  'date',
  'headers',
  'text',
  'html',
  'envelope',
  'baseBoundary',
  'to',
  'attachments',
]);

/** Headers the composer or the tree set themselves: a copy's own header of that name is composed on its own. */
const OWN_HEADERS = new Set(
  'from sender to cc bcc reply-to in-reply-to references subject message-id date mime-version'.split(' '),
);

/** Frames kept per thread: a few message shapes delivered at the same time. */
const frames = new LRUCache<string, Frame>({ max: 16 });

/**
 * The copy `options` describe, written from the frame of its shape (composed now when none is kept), or undefined
 * when a frame does not cover these options.
 */
export function renderFromFrame(options: Mail.Options): Buffer | undefined {
  const key = frameKey(options);
  if (key === undefined) return undefined;
  const frame = frames.get(key) ?? compose(options);
  if (!frame) return undefined;
  // Kept again only once a copy was written from it: a frame that failed is let go.
  frames.delete(key);
  try {
    fill(frame, options);
    const raw = buildMimeSync(frame.root);
    if (raw) frames.set(key, frame);
    return raw;
  } finally {
    empty(frame);
  }
}

/** What a frame for `options` depends on, or undefined when a frame does not cover them. */
function frameKey(options: Mail.Options): string | undefined {
  const { headers, text, html, baseBoundary } = options;
  for (const name of Object.keys(options))
    if (!FRAME_OPTIONS.has(name) && (options as Record<string, unknown>)[name] !== undefined)
      return undefined;
  if (options.to !== undefined || (options.attachments !== undefined && options.attachments.length > 0))
    return undefined;
  // A copy without its own Message-ID or date would get the frame's, and a boundary base with characters the tree
  // drops would differ from the copy's own.
  if (
    !options.messageId ||
    !options.date ||
    typeof baseBoundary !== 'string' ||
    !/^[\w-]+$/.test(baseBoundary)
  )
    return undefined;
  if ((text !== undefined && typeof text !== 'string') || (html !== undefined && typeof html !== 'string'))
    return undefined;
  // Names of letters, digits and dashes only, which the tree spells alike when they differ only in case, so two names
  // are one header exactly when their lower cases are equal.
  const names = Object.keys(headers ?? {});
  const lower = names.map((n) => n.toLowerCase());
  if (
    lower.some(
      (n, i) =>
        !/^[a-z0-9-]+$/.test(n) || OWN_HEADERS.has(n) || n.startsWith('content-') || lower.indexOf(n) !== i,
    )
  )
    return undefined;
  if (Object.values(headers ?? {}).some((v) => typeof v !== 'string')) return undefined;
  return JSON.stringify([options.from, options.replyTo, names, !!options.subject, !!text, !!html]);
}

/** The composer's tree for `options`, with where each copy's values go; undefined when its parts are not found. */
function compose(options: Mail.Options): Frame | undefined {
  // The envelope is not part of the copy: the frame does not keep the first copy's recipient.
  const root = new (mailComposer())({ ...options, envelope: undefined }).compile();
  const nodes: Node[] = [];
  const walk = (node: Node) => {
    nodes.push(node);
    node.childNodes.forEach(walk);
  };
  walk(root as unknown as Node);
  for (const n of nodes) n._normalizeHeaderKey = normalizedKey(n._normalizeHeaderKey.bind(n));
  const type = (n: Node) => String((n as unknown as MimeNode).getHeader('Content-Type') ?? '').toLowerCase();
  const part = (content: unknown, prefix: string) =>
    content ? nodes.find((n) => n.content === content && type(n).startsWith(prefix)) : undefined;
  const frame: Frame = {
    root,
    headers: Object.keys(options.headers ?? {}),
    subject: !!options.subject,
    text: part(options.text, 'text/plain'),
    html: part(options.html, 'text/html'),
    multipart: nodes.filter((n) => type(n).startsWith('multipart/')),
  };
  if (!!options.text !== !!frame.text || !!options.html !== !!frame.html) return undefined;
  return frame;
}

/** Sets a copy's own values on the frame, as the composer and renderMime would set them on a tree of their own. */
function fill(frame: Frame, options: Mail.Options): void {
  const root = frame.root as unknown as Node;
  const headers = (options.headers ?? {}) as Record<string, string>;
  for (const name of frame.headers) root.setHeader(name, headers[name]);
  if (options.subject) root.setHeader('subject', options.subject);
  root.setHeader('message-id', options.messageId);
  root.setHeader('date', options.date);
  root.baseBoundary = options.baseBoundary!;
  for (const node of frame.multipart) node.boundary = false;
  if (frame.text) setBody(frame.text, options.text as string);
  if (frame.html) setBody(frame.html, options.html as string);
}

/** A part's body and the transfer encoding the composer would choose for it (see transferEncoding in mime-build.ts). */
function setBody(node: Node, content: string): void {
  // The tree only ever sets this flag; a body of its own starts without it.
  node._hasLongLines = false;
  node.setContent(content);
  // What the tree found setting the body decides, as in transferEncoding, whether it goes as it is.
  const plain = node._isPlainText && !node._hasLongLines;
  node.setHeader('Content-Transfer-Encoding', plain ? '7bit' : countedEncoding(content));
}

/**
 * Header names as the tree spells them, kept: the tree spells a name at every read and write of a header. The
 * spelling depends on the name alone.
 */
const spelled = new LRUCache<string, string>({ max: 1000 });

function normalizedKey(normalize: (key: unknown) => string): (key: unknown) => string {
  return (key) => {
    if (typeof key !== 'string') return normalize(key);
    let hit = spelled.get(key);
    if (hit === undefined) spelled.set(key, (hit = normalize(key)));
    return hit;
  };
}

/** Takes a copy's bodies and header values off the frame once it is written (its boundaries are random). */
function empty(frame: Frame): void {
  const root = frame.root as unknown as Node;
  for (const name of frame.headers) root.setHeader(name, '');
  if (frame.subject) root.setHeader('subject', '');
  // Set again by the next copy before the tree is written.
  root.setHeader('message-id', '');
  root.setHeader('date', '');
  if (frame.text) frame.text.content = undefined;
  if (frame.html) frame.html.content = undefined;
}
