/** The MIME tree written without streams is the tree's own stream, byte for byte. */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type MimeNode from 'nodemailer/lib/mime-node/index.js';
import { buildMime } from './mime-build.ts';

const base: Mail.Options = {
  from: { address: 'desk@clinic.example', name: 'Désk' },
  to: [{ address: 'patient@example.org', name: 'Patient Ünïcode' }],
  subject: 'Ihre Ergebnisse – bitte lesen',
  messageId: '<fixed@clinic.example>',
  date: new Date('2026-11-27T08:00:00Z'),
  headers: { 'List-Unsubscribe': '<https://clinic.example/u/1>' },
  baseBoundary: 'fixedboundary',
};

// Bodies around every rule of the encoders: trailing whitespace (encoded at the end of input and of lines), lone CR
// and LF, lines longer than 76, soft breaks next to escapes, more than the quoted-printable encoder's 64 KiB slice,
// and content mostly not ASCII (base64).
const BODIES = [
  'Short lines\r\nof plain ASCII',
  'ends in spaces   ',
  'ends in a tab\t',
  'space before a break \r\nand a tab\t\nhere',
  'lone\rcarriage returns\rand lone\nline feeds',
  'Grüße\rlone carriage returns\rand lone\nline feeds, quoted-printable',
  `${'x'.repeat(74)}é${'y'.repeat(200)}`,
  `${'word '.repeat(30)}=${'word '.repeat(30)}`,
  `${'Grüße aus der Praxis. '.repeat(4000)}`,
  `${'a'.repeat(65_530)}      ${'b'.repeat(10)}`,
  '診察のご予約を承りました。ご来院をお待ちしております。'.repeat(50),
  '\u0000\u0001 binary-ish ab',
  'ends in a carriage return\r',
  'ends in a line feed\n',
];

/** The tree of `options`, built twice: by the tree's stream and by buildMime. */
async function both(options: Mail.Options): Promise<[string, string]> {
  const theirs = await new MailComposer(options).compile().build();
  const ours = await buildMime(new MailComposer(options).compile());
  return [ours.toString('binary'), theirs.toString('binary')];
}

describe('writing a MIME tree without streams', () => {
  it('writes what the tree streams, whatever the bodies and the parts', async () => {
    const attachment = {
      filename: 'results.pdf',
      contentType: 'application/pdf',
      content: Buffer.from([0, 13, 10, 255, 32]),
    };
    const csv = { filename: 'results.csv', contentType: 'text/csv', content: 'a,b\r\n1,2 \n' };
    // Not text: a lone CR or LF in it is data, which the encoder keeps from becoming a line break.
    const json = {
      filename: 'answers.json',
      contentType: 'application/json',
      content: '{"a":"b\rc\nd é"}',
      contentTransferEncoding: 'quoted-printable',
    };
    let compared = 0;
    for (const body of BODIES)
      for (const parts of [
        { text: body },
        { html: body },
        { text: body, html: `<p>${body}</p>` },
        { text: body, html: body, attachments: [attachment, csv, json] },
        { text: body, newline: '\r\n' },
        { html: body, attachments: [attachment], newline: 'windows' },
      ]) {
        const [ours, theirs] = await both({ ...base, ...parts });
        expect({ parts: Object.keys(parts), body: body.slice(0, 40), ours }).toEqual({
          parts: Object.keys(parts),
          body: body.slice(0, 40),
          ours: theirs,
        });
        compared++;
      }
    expect(compared).toBe(BODIES.length * 6);
  });

  it('writes the trees it covers without the stream, and leaves the others to it', async () => {
    const streamed = (options: Mail.Options) => {
      const root = new MailComposer(options).compile();
      let calls = 0;
      const build = root.build.bind(root);
      root.build = (() => {
        calls++;
        return build();
      }) as MimeNode['build'];
      return { root, calls: () => calls };
    };
    const covered = streamed({ ...base, text: 'Hello', html: '<p>Hello</p>' });
    await buildMime(covered.root);
    const fromStream = streamed({ ...base, text: Readable.from(['Hello']) });
    const fromUnix = streamed({ ...base, text: 'Hello\r\nthere', newline: 'unix' });
    const [viaStream, viaUnix] = [await buildMime(fromStream.root), await buildMime(fromUnix.root)];
    expect([covered.calls(), fromStream.calls(), fromUnix.calls()]).toEqual([0, 1, 1]);
    expect(viaStream.toString()).toContain('\r\n\r\nHello');
    expect(viaUnix.toString()).toContain('Hello\nthere');
  });
});
