/**
 * Reads a JSON body as it arrives without ever holding its text whole: strings longer than LONG_STRING are kept aside
 * as the JSON text they came in (checked for base64 on the way), and the rest, the skeleton, is parsed once the body
 * has ended, with a stand-in where each long string was. A 30 MB attachment is then held once, as received, instead
 * of as chunks, a joined buffer, a string and a parsed copy.
 */
import { randomUUID } from 'node:crypto';
import { LONG_STRING, unescapeSlashes } from '../mail/held-attachments.ts';

const SLAB_BYTES = 1024 * 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BASE64 = /^[A-Za-z0-9+/]*$/;
const PADDING = /^=*$/;

/**
 * A long string of the body, as its JSON text: `base64` when that text is canonical base64 (padded, nothing but the
 * alphabet, slashes possibly escaped as `\/`), so it can be decoded piece by piece; `text` otherwise.
 */
export interface LongString {
  kind: 'base64' | 'text';
  raw: Buffer[];
  /** For base64: the number of bytes it decodes to. */
  bytes: number;
}

/** One long string as it streams in, checked for base64 on the way. */
class LongStringBuilder {
  private readonly raw: Buffer[] = [];
  /** The slab being filled: the network's small chunks are copied into large buffers, which are freed back whole. */
  private slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  private used = 0;
  private base64 = true;
  /** The last piece ended in a backslash whose escaped character is in the next. */
  private backslash = false;
  private padding = 0;
  private chars = 0;

  add(piece: Buffer): void {
    this.keep(piece);
    if (!this.base64) return;
    const text = unescapeSlashes(piece.toString('latin1'), this.backslash);
    this.backslash = text.pending;
    if (text.chars === null) return void (this.base64 = false);
    this.chars += text.chars.length;
    const pad = text.chars.indexOf('=');
    const body = pad < 0 ? text.chars : text.chars.slice(0, pad);
    if (!BASE64.test(body) || (this.padding > 0 && body.length > 0)) return void (this.base64 = false);
    if (pad >= 0) {
      if (!PADDING.test(text.chars.slice(pad))) return void (this.base64 = false);
      this.padding += text.chars.length - pad;
    }
  }

  private keep(piece: Buffer): void {
    for (let at = 0; at < piece.length;) {
      const n = piece.copy(this.slab, this.used, at);
      this.used += n;
      at += n;
      if (this.used === SLAB_BYTES) {
        this.raw.push(this.slab);
        this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
        this.used = 0;
      }
    }
  }

  finish(): LongString {
    // The last slab is cut to what it holds: a copy, so the slab's unused part is not kept with it.
    if (this.used > 0) this.raw.push(Buffer.from(this.slab.subarray(0, this.used)));
    const canonical = this.base64 && !this.backslash && this.chars % 4 === 0 && this.padding <= 2;
    return { kind: canonical ? 'base64' : 'text', raw: this.raw, bytes: (this.chars / 4) * 3 - this.padding };
  }
}

/**
 * Reads JSON text piece by piece; `finish` answers the skeleton's text and the long strings by their stand-ins. The
 * skeleton is kept as runs of the chunks as they came; a string that grows long is cut from its end.
 */
export class JsonReader {
  private readonly skeleton: Buffer[] = [];
  private inString = false;
  /** The last byte read was a backslash inside a string (the next one is escaped). */
  private escaped = false;
  /** Bytes of the open string so far, while it is short (they are the skeleton's last bytes). */
  private openLength = 0;
  private long: LongStringBuilder | undefined;
  private readonly longs = new Map<string, LongString>();
  private nonce: string | undefined;
  /** The next backslash in the chunk being read at or after the scan, or -1: found once per chunk, not per string. */
  private slash = -1;

  write(chunk: Buffer): void {
    // The skeleton's run in this chunk starts at `run`; a long string's bytes move it past them.
    let run = 0;
    let at = 0;
    this.slash = chunk.indexOf(BACKSLASH);
    while (at < chunk.length) {
      if (!this.inString) {
        const quote = chunk.indexOf(QUOTE, at);
        if (quote < 0) break;
        this.inString = true;
        this.openLength = 0;
        at = quote + 1;
        continue;
      }
      const close = this.closingQuote(chunk, at);
      const end = close < 0 ? chunk.length : close;
      if (!this.long) {
        this.openLength += end - at;
        if (this.openLength > LONG_STRING) {
          this.skeleton.push(chunk.subarray(run, end));
          this.long = new LongStringBuilder();
          for (const piece of this.cutTail(this.openLength)) this.long.add(piece);
          run = end;
        }
      } else {
        this.long.add(chunk.subarray(at, end));
        run = end;
      }
      if (close < 0) break;
      if (this.long) this.closeLong();
      this.inString = false;
      at = close + 1;
    }
    if (run < chunk.length) this.skeleton.push(run === 0 ? chunk : chunk.subarray(run));
  }

  /** The index of the quote that closes the open string, or -1 when it does not close in this chunk. */
  private closingQuote(chunk: Buffer, from: number): number {
    let i = from;
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    let quote = chunk.indexOf(QUOTE, i);
    if (this.slash >= 0 && this.slash < i) this.slash = chunk.indexOf(BACKSLASH, i);
    while (this.slash >= 0 && (quote < 0 || this.slash < quote)) {
      if (this.slash + 1 >= chunk.length) {
        this.escaped = true;
        this.slash = -1;
        return -1;
      }
      i = this.slash + 2;
      if (quote >= 0 && quote < i) quote = chunk.indexOf(QUOTE, i);
      this.slash = chunk.indexOf(BACKSLASH, i);
    }
    return quote;
  }

  /** Removes the skeleton's last `n` bytes (the open string's, so far) and answers them. */
  private cutTail(n: number): Buffer[] {
    const cut: Buffer[] = [];
    for (let left = n; left > 0;) {
      const last = this.skeleton.pop()!;
      if (last.length <= left) {
        cut.unshift(last);
        left -= last.length;
      } else {
        cut.unshift(last.subarray(last.length - left));
        this.skeleton.push(last.subarray(0, last.length - left));
        left = 0;
      }
    }
    return cut;
  }

  /** Ends a long string: its stand-in takes its place (the quotes around it are the skeleton's). */
  private closeLong(): void {
    this.nonce ??= randomUUID();
    const standIn = `\u0000long:${this.nonce}:${this.longs.size}`;
    this.longs.set(standIn, this.long!.finish());
    this.skeleton.push(Buffer.from(JSON.stringify(standIn).slice(1, -1)));
    this.long = undefined;
  }

  /** The skeleton's text and the long strings it names; the text is not checked here (JSON.parse does that). */
  finish(): { text: string; longs: Map<string, LongString> } {
    // An unterminated long string leaves an unterminated string behind, for the parser to refuse.
    if (this.inString && this.long) this.skeleton.push(Buffer.from('x'));
    return { text: Buffer.concat(this.skeleton).toString('utf8'), longs: this.longs };
  }
}

/** Collects a body whole, nothing kept aside: for a body small enough that scanning would cost more than it saves. */
export class ShortJsonReader {
  private readonly chunks: Buffer[] = [];

  write(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  finish(): { text: string; longs: Map<string, LongString> } {
    return { text: Buffer.concat(this.chunks).toString('utf8'), longs: new Map() };
  }
}

/** A long string as a string: its raw text read as a JSON string. */
export function longText(long: LongString): string {
  return JSON.parse(
    Buffer.concat([Buffer.from('"'), ...long.raw, Buffer.from('"')]).toString('utf8'),
  ) as string;
}

/**
 * Puts each long string back into the parsed value, in place: as a string, or, for the `content` of an element of an
 * `attachments` array when `keep` is given, handed to `keep`, which answers the stand-in to put there. Object keys that were long strings are put back as strings.
 */
export function restoreLongStrings(
  value: unknown,
  longs: Map<string, LongString>,
  keep?: (long: LongString) => string,
): unknown {
  // `attachment`: for a string, its holder is an element of an `attachments` array; for an object, it is one.
  const put = (v: unknown, attachment: boolean, key: string | undefined): unknown => {
    if (typeof v === 'string') {
      const long = longs.get(v);
      if (!long) return v;
      if (keep && attachment && key === 'content' && long.kind === 'base64') return keep(long);
      return longText(long);
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = put(v[i], key === 'attachments', undefined);
      return v;
    }
    if (v === null || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const restored = put(o[k], attachment && typeof o[k] === 'string', k);
      if (longs.has(k)) {
        delete o[k];
        o[longText(longs.get(k)!)] = restored;
      } else o[k] = restored;
    }
    return o;
  };
  return put(value, false, undefined);
}
