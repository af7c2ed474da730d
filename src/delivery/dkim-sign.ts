/**
 * DKIM signing of a rendered message with each key of its From domain: `rsa-sha256` (RFC 6376) and `ed25519-sha256`
 * (RFC 8463), relaxed/relaxed. The body is canonicalized and hashed once for all keys; the headers are
 * canonicalized by nodemailer's canonicalizer, and an RSA field is the one nodemailer's signer makes, byte for byte.
 */
import { createHash, createPrivateKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { domainToASCII } from 'node:url';
import rsaSign from 'nodemailer/lib/dkim/sign.js';
import type MessageParser from 'nodemailer/lib/dkim/message-parser.js';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs/index.js';
import type { DkimKey } from './model.ts';

/** The header fields signed when present (nodemailer's list, RFC 6376 section 5.4.1). */
const SIGNED_FIELDS =
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:' +
  'Content-ID:Content-Description:Resent-Date:Resent-From:Resent-Sender:Resent-To:Resent-Cc:Resent-Message-ID:' +
  'In-Reply-To:References:List-Id:List-Help:List-Unsubscribe:List-Subscribe:List-Post:List-Owner:List-Archive';

// The typings declare the canonicalizer with the signer's signature; this is its real one.
const relaxedHeaders = (
  rsaSign as unknown as {
    relaxedHeaders(
      headers: MessageParser.Header[],
      fieldNames: string,
    ): { headers: string; fieldNames: string };
  }
).relaxedHeaders;

/** The DKIM algorithm a key signs with, from the key itself. */
export function dkimAlgorithm(key: DkimKey['privateKey']): 'rsa' | 'ed25519' {
  const type = (typeof key === 'string' ? createPrivateKey(key) : key).asymmetricKeyType;
  if (type === 'rsa' || type === 'ed25519') return type;
  throw new Error(`DKIM keys are RSA or Ed25519, not ${type}`);
}

/**
 * `raw` with one DKIM-Signature header per key in front, in the order of `keys`. The private-key operations run on
 * libuv's thread pool, so a busy delivery lane signs on the other cores while the event loop goes on.
 */
export async function signDkim(raw: Buffer, keys: readonly DkimKey[]): Promise<Buffer> {
  if (keys.length === 0) return raw;
  const end = raw.indexOf('\r\n\r\n');
  const headerEnd = end < 0 ? raw.length : end + 2;
  const headers = parseHeaders(raw.subarray(0, headerEnd).toString('binary'));
  const bodyHash = relaxedBodyHash(end < 0 ? Buffer.alloc(0) : raw.subarray(end + 4));
  const fields = await Promise.all(keys.map((key) => signatureField(headers, bodyHash, key)));
  return Buffer.concat([Buffer.from(fields.join(''), 'binary'), raw]);
}

/** Signs `data` on the thread pool: `algorithm` null for Ed25519 (PureEdDSA), a digest name for RSA. */
function signOffLoop(algorithm: string | null, data: Buffer, key: KeyObject | string): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    cryptoSign(algorithm, data, key, (err, signature) => (err ? reject(err) : resolve(signature))),
  );
}

/**
 * One DKIM-Signature header line (with its CRLF) for one key. The RSA field is built as nodemailer's signer builds it
 * (the same tags, folding and signed text), byte for byte; the Ed25519 field covers the same header data and field
 * list, with the data hashed with SHA-256 and the hash signed with PureEdDSA, as RFC 8463 section 3 asks.
 */
async function signatureField(
  headers: MessageParser.Header[],
  bodyHash: string,
  key: DkimKey,
): Promise<string> {
  const privateKey: KeyObject | string = key.privateKey;
  const rsa = dkimAlgorithm(privateKey) === 'rsa';
  const canonical = relaxedHeaders(headers, SIGNED_FIELDS);
  const tags = [
    'v=1',
    rsa ? 'a=rsa-sha256' : 'a=ed25519-sha256',
    'c=relaxed/relaxed',
    `d=${domainToASCII(key.domainName) || key.domainName}`,
    'q=dns/txt',
    `s=${key.keySelector}`,
    `bh=${bodyHash}`,
    `h=${canonical.fieldNames}`,
  ].join('; ');
  // Folded before signing, so the signed text is what receivers canonicalize.
  const unsigned = `${mimeFuncs.foldLines(`DKIM-Signature: ${tags}`, 76)};\r\n b=`;
  const data = `${canonical.headers}dkim-signature:${relaxedValue(unsigned)}`;
  if (rsa) {
    const signature = (await signOffLoop('sha256', Buffer.from(data), privateKey)).toString('base64');
    return `${unsigned}${signature.replace(/(^.{73}|.{75}(?!\r?\n|\r))/g, '$&\r\n ').trim()}\r\n`;
  }
  const hash = createHash('sha256').update(data, 'binary').digest();
  return `${unsigned}${(await signOffLoop(null, hash, privateKey)).toString('base64')}\r\n`;
}

/** Header fields as nodemailer's parser gives them: lower-cased name and the whole (unfolded-over-lines) field. */
function parseHeaders(text: string): MessageParser.Header[] {
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i > 0; i--) {
    if (/^\s/.test(lines[i]!)) {
      lines[i - 1] += `\n${lines[i]}`;
      lines.splice(i, 1);
    }
  }
  return lines
    .filter((line) => line.trim())
    .map((line) => ({ key: line.slice(0, line.indexOf(':')).trim().toLowerCase(), line }));
}

/** A header value in relaxed canonical form (RFC 6376 section 3.4.2). */
function relaxedValue(line: string): string {
  return line
    .slice(line.indexOf(':') + 1)
    .replace(/\r?\n/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * SHA-256 of the body in relaxed canonical form (RFC 6376 section 3.4.4), base64: spaces and tabs at line ends
 * dropped, runs of them made one space, empty lines at the end dropped, and a non-empty body ending in one CRLF.
 */
export function relaxedBodyHash(body: Buffer): string {
  let text = body.toString('binary');
  if (/[ \t]|(^|[^\r])\n/.test(text))
    text = text
      .replace(/\r?\n/g, '\r\n')
      .replace(/[ \t]+\r\n/g, '\r\n')
      .replace(/[ \t]+$/, '')
      .replace(/[ \t]+/g, ' ')
      .replace(/(\r\n)+$/, '');
  else text = text.replace(/(\r\n)+$/, '');
  if (text.length > 0) text += '\r\n';
  return createHash('sha256').update(text, 'binary').digest('base64');
}
