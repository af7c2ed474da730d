/** The streaming JSON reader: whatever the chunking, the parsed value is JSON.parse's, and long base64 is held as bytes. */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalBase64 } from '../email/message-input.ts';
import {
  heldLength,
  holdBase64,
  isHeld,
  letGo,
  LONG_STRING,
  takeHeldBytes,
} from '../mail/held-attachments.ts';
import { JsonReader, restoreLongStrings, type LongString } from './json-reader.ts';

/** Reads `text` cut into chunks at `cuts` (byte offsets), as the network would hand it over. */
function read(text: string, cuts: number[] = []): { text: string; longs: Map<string, LongString> } {
  const bytes = Buffer.from(text, 'utf8');
  const reader = new JsonReader();
  let at = 0;
  for (const cut of [...new Set(cuts)].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b)) {
    reader.write(bytes.subarray(at, cut));
    at = cut;
  }
  reader.write(bytes.subarray(at));
  return reader.finish();
}

const parsed = (text: string, cuts: number[] = [], keep?: (long: LongString) => string) => {
  const out = read(text, cuts);
  return { value: restoreLongStrings(JSON.parse(out.text), out.longs, keep), longs: out.longs };
};

/** How many strings of a value (keys too) the reader should keep aside: those whose JSON text is long. */
function longStrings(v: unknown): number {
  const long = (s: string) => (Buffer.byteLength(JSON.stringify(s)) - 2 > LONG_STRING ? 1 : 0);
  if (typeof v === 'string') return long(v);
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + longStrings(x), 0);
  if (v === null || typeof v !== 'object') return 0;
  return Object.entries(v).reduce((n, [k, x]) => n + long(k) + longStrings(x), 0);
}

const bytesOf = (standIn: string) => Buffer.concat([...takeHeldBytes(standIn)]);

describe('the JSON reader', () => {
  it('gives what JSON.parse gives, however the text is cut, with long strings of any kind', () => {
    const long = fc.oneof(
      fc.string({ minLength: LONG_STRING + 1, maxLength: LONG_STRING + 200 }),
      fc.constantFrom(
        randomBytes(60_000).toString('base64'),
        'é"\\\n\u2028😀'.repeat(20_000),
        `${randomBytes(50_000).toString('base64')}\n${'='.repeat(3)}`,
      ),
    );
    const value = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        long,
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(fc.oneof(fc.string(), long), tie('v'), { maxKeys: 3 }),
      ),
    }));
    fc.assert(
      fc.property(value.v, fc.array(fc.nat(), { maxLength: 40 }), (v, cuts) => {
        const text = JSON.stringify(v);
        const scaled = cuts.map((c) => c % (Buffer.byteLength(text) + 1));
        const out = parsed(text, scaled);
        expect(out.value).toEqual(JSON.parse(text));
        expect(out.longs.size).toBe(longStrings(v));
      }),
      { numRuns: 60, endOnFailure: true },
    );
  });

  it('holds the base64 of an attachment as bytes, escaped slashes and all, and cut anywhere', () => {
    const bytes = randomBytes(100_000);
    const base64 = bytes.toString('base64');
    for (const text of [
      JSON.stringify({ attachments: [{ fileName: 'a.pdf', content: base64 }] }),
      JSON.stringify({ attachments: [{ fileName: 'a.pdf', content: base64 }] }).replaceAll('/', '\\/'),
    ])
      for (const cuts of [
        [],
        [1, 20, 30_001, 30_002, 70_000],
        Array.from({ length: 400 }, (_, i) => i * 337),
      ]) {
        const held: string[] = [];
        const { value } = parsed(text, cuts, (long) => {
          const standIn = holdBase64(long.raw, long.bytes);
          held.push(standIn);
          return standIn;
        });
        const content = (value as { attachments: { content: string }[] }).attachments[0]!.content;
        expect(held).toEqual([content]);
        expect(content.length).toBeLessThan(100);
        expect(canonicalBase64(content)).toBe(content);
        expect(heldLength(content)).toBe(bytes.length);
        expect(bytesOf(content).equals(bytes)).toBe(true);
        // Taken once: the sealer is its only reader.
        expect(isHeld(content)).toBe(false);
        expect(() => bytesOf(content)).toThrow('let go');
        expect(canonicalBase64(content)).toBeNull();
      }
  });

  it('holds only canonical base64 in attachments; other long strings come back as strings', () => {
    const base64 = randomBytes(90_000).toString('base64');
    const unpadded = randomBytes(90_001).toString('base64').replace(/=+$/, '');
    const wrapped = base64.replace(/.{76}/g, '$&\n');
    const body = {
      html: base64,
      attachments: [
        { content: unpadded },
        { content: wrapped },
        { content: `${base64}` },
        { content: 'short' },
        { nested: { content: base64 } },
      ],
    };
    const text = JSON.stringify(body);
    const { value } = parsed(text, [], (long) => holdBase64(long.raw, long.bytes));
    const v = value as typeof body;
    expect(v.html).toBe(base64);
    expect(v.attachments[0]!.content).toBe(unpadded);
    expect(v.attachments[1]!.content).toBe(wrapped);
    expect(bytesOf(v.attachments[2]!.content!).toString('base64')).toBe(base64);
    expect(v.attachments[3]!.content).toBe('short');
    expect(v.attachments[4]!.nested!.content).toBe(base64);
  });

  it('lets held bytes go untaken when the request ends', () => {
    const standIn = holdBase64([Buffer.from('QUJD')], 3);
    expect(canonicalBase64(standIn)).toBe(standIn);
    letGo([standIn]);
    expect(isHeld(standIn)).toBe(false);
    expect(() => bytesOf(standIn)).toThrow('let go');
  });

  it('never takes a string of the client for a stand-in', () => {
    expect(canonicalBase64('\u0000held-base64:00000000-0000-0000-0000-000000000000')).toBeNull();
  });

  it('keeps text that is not JSON as it came, for the parser to refuse', () => {
    for (const text of ['{"a": "unterminated', `{"a": "${'x'.repeat(LONG_STRING + 10)}`, '{"a": 1'])
      expect(() => JSON.parse(read(text, [5, 9]).text)).toThrow();
  });
});
