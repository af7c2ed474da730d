/**
 * A DKIM verifier for tests, written from RFC 6376 (relaxed/relaxed) and RFC 8463 apart from the signer: it reads each
 * DKIM-Signature of a raw message and checks its body hash and its signature with a public key as DNS publishes it.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';

/** One DKIM-Signature of a message and what checking it found. */
export interface CheckedSignature {
  algorithm: string;
  domain: string;
  selector: string;
  bodyHashOk: boolean;
  signatureOk: boolean;
}

/** The public key of a DKIM TXT record value (`v=DKIM1; k=...; p=...`). */
export function keyOfRecord(value: string): KeyObject {
  const tags = tagList(value);
  const p = Buffer.from(tags.get('p') ?? '', 'base64');
  if (tags.get('k') === 'ed25519')
    return createPublicKey({
      key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), p]),
      format: 'der',
      type: 'spki',
    });
  return createPublicKey({ key: p, format: 'der', type: 'spki' });
}

/** Checks every DKIM-Signature of `raw`, taking each key from `records` by `<selector>._domainkey.<domain>`. */
export function verifyDkim(raw: Buffer | string, records: Map<string, string>): CheckedSignature[] {
  const text = Buffer.isBuffer(raw) ? raw.toString('binary') : raw;
  const split = text.indexOf('\r\n\r\n');
  const fields = unfoldFields(text.slice(0, split + 2));
  const body = text.slice(split + 4);
  return fields
    .filter((f) => f.name.toLowerCase() === 'dkim-signature')
    .map((sig) => {
      const tags = tagList(sig.value);
      const algorithm = tags.get('a') ?? '';
      const domain = tags.get('d') ?? '';
      const selector = tags.get('s') ?? '';
      const bodyHash = createHash('sha256').update(relaxedBody(body), 'binary').digest('base64');
      const record = records.get(`${selector}._domainkey.${domain}`);
      let signatureOk = false;
      if (record) {
        const data = signedHeaderData(fields, (tags.get('h') ?? '').split(':'), sig);
        const signature = Buffer.from(tags.get('b') ?? '', 'base64');
        const key = keyOfRecord(record);
        signatureOk =
          algorithm === 'ed25519-sha256'
            ? verify(null, createHash('sha256').update(data, 'binary').digest(), key, signature)
            : algorithm === 'rsa-sha256' && verify('sha256', Buffer.from(data, 'binary'), key, signature);
      }
      return { algorithm, domain, selector, bodyHashOk: bodyHash === tags.get('bh'), signatureOk };
    });
}

interface Field {
  name: string;
  value: string;
  /** The field as it appears, folded lines and all. */
  raw: string;
}

function unfoldFields(head: string): Field[] {
  const out: Field[] = [];
  for (const line of head.split('\r\n')) {
    if (line === '') continue;
    if (/^[ \t]/.test(line) && out.length > 0) {
      const last = out[out.length - 1]!;
      last.raw += `\r\n${line}`;
      last.value += `\r\n${line}`;
    } else {
      const colon = line.indexOf(':');
      out.push({ name: line.slice(0, colon), value: line.slice(colon + 1), raw: line });
    }
  }
  return out;
}

/** Tag=value pairs with all whitespace removed from values (b= and bh= may be folded anywhere). */
function tagList(value: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    tags.set(part.slice(0, eq).trim(), part.slice(eq + 1).replace(/\s+/g, ''));
  }
  return tags;
}

/** RFC 6376 section 3.4.2: lower-case name, unfolded value with whitespace runs as one space, trimmed. */
function relaxedHeader(name: string, value: string): string {
  return `${name.trim().toLowerCase()}:${value
    .replace(/\r\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim()}`;
}

/** RFC 6376 section 3.4.4, line by line. */
function relaxedBody(body: string): string {
  const lines = body.split('\r\n').map((l) => l.replace(/[ \t]+/g, ' ').replace(/ $/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.length === 0 ? '' : `${lines.join('\r\n')}\r\n`;
}

/** RFC 6376 section 5.4.2: the named fields, each instance taken from the bottom up, then the signature without b=. */
function signedHeaderData(fields: Field[], names: string[], sig: Field): string {
  const used = new Set<Field>();
  const parts: string[] = [];
  for (const name of names) {
    const n = name.trim().toLowerCase();
    const found = [...fields].reverse().find((f) => f.name.trim().toLowerCase() === n && !used.has(f));
    if (!found) continue;
    used.add(found);
    parts.push(`${relaxedHeader(found.name, found.value)}\r\n`);
  }
  const withoutB = sig.value.replace(/(;\s*b=)[^;]*/, '$1');
  return parts.join('') + relaxedHeader(sig.name, withoutB);
}
