/** Copies written from a kept frame are the composer's own, byte for byte, and the frame keeps no copy's content. */
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type MailComposerClass from 'nodemailer/lib/mail-composer/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type MimeNode from 'nodemailer/lib/mime-node/index.js';
import { renderFromFrame } from './mime-frame.ts';

// The composer as the frames load it (the same module instance), so its compilations can be counted.
const MailComposer = createRequire(import.meta.url)(
  'nodemailer/lib/mail-composer/index.js',
) as typeof MailComposerClass;

// Bodies in an order where each needs another transfer encoding than the one before: 7bit, quoted-printable, base64,
// long plain lines (quoted-printable), short plain lines again (7bit), and back.
const BODIES = [
  'Short lines\r\nof plain ASCII',
  'Grüße aus der Praxis, bitte bringen Sie Ihre Karte mit.',
  '診察のご予約を承りました。ご来院をお待ちしております。'.repeat(20),
  `${'word '.repeat(40)}\r\n${'x'.repeat(200)}`,
  'Plain again',
  'ends in spaces   ',
  `${'Grüße. '.repeat(3000)}`,
  'A tab\there and a bell \u0007',
  'Plain',
];

const LAYOUTS: ((body: string, n: number) => Partial<Mail.Options>)[] = [
  (body) => ({ text: body }),
  (body) => ({ html: body }),
  (body, n) => ({ text: body, html: `<p>${n}: ${body}</p>` }),
];

function copy(n: number, parts: Partial<Mail.Options>): Mail.Options {
  return {
    from: { address: 'news@clinic.example', name: 'Clinic Néws' },
    replyTo: { address: 'care@clinic.example', name: '' },
    subject: n % 3 === 0 ? `Your November letter ${n}` : `Ihr Brief ${n} – Grüße`,
    messageId: `<m${n}@clinic.example>`,
    date: new Date(Date.UTC(2026, 10, 27, 9, n % 60)),
    headers: {
      'X-Sealpost-Addresses-1234567890': '1',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'List-Unsubscribe': `<https://clinic.example/u/${n}>`,
    },
    envelope: { from: 'bounces@clinic.example', to: [`patient${n}@example.org`] },
    baseBoundary: `b${n}x`,
    ...parts,
  };
}

const compose = async (options: Mail.Options) =>
  (await new MailComposer(options).compile().build()).toString();

afterEach(() => {
  vi.restoreAllMocks();
});

describe('copies written from a frame', () => {
  it("are what the composer renders from each copy's own options, copy after copy", async () => {
    let n = 0;
    for (const layout of LAYOUTS)
      for (let round = 0; round < 2; round++)
        for (const body of BODIES) {
          const options = copy(++n, layout(body, n));
          const ours = renderFromFrame(options)?.toString();
          expect({ n, ours }).toEqual({ n, ours: await compose(options) });
        }
    expect(n).toBe(LAYOUTS.length * 2 * BODIES.length);
  });

  it('are composed once per shape: each shape is compiled once, whatever its copies say', () => {
    const compile = vi.spyOn(MailComposer.prototype, 'compile');
    // Senders of their own: frames are kept across tests.
    const letters = { address: 'letters@clinic.example', name: 'Letters' };
    const other = { ...copy(0, {}), from: { address: 'desk@other.example', name: 'Desk' } };
    for (let n = 1; n <= 20; n++) {
      const parts = { from: letters, text: BODIES[n % BODIES.length], html: `<p>${n}</p>` };
      expect(renderFromFrame(copy(n, parts))).toBeDefined();
      expect(renderFromFrame({ ...other, text: BODIES[n % BODIES.length] })).toBeDefined();
    }
    expect(compile).toHaveBeenCalledTimes(2);
  });

  it("keep no copy's bodies, subject or header values once it is written", () => {
    const roots: MimeNode[] = [];
    const original = MailComposer.prototype.compile;
    vi.spyOn(MailComposer.prototype, 'compile').mockImplementation(function (this: MailComposerClass) {
      const root = original.call(this);
      roots.push(root);
      return root;
    });
    const from = { address: 'results@clinic.example', name: 'Results' };
    const secret = copy(1, { from, text: 'Your test result: SECRET-BODY', html: '<p>SECRET-HTML</p>' });
    secret.subject = 'SECRET-SUBJECT';
    secret.messageId = '<SECRET-ID@clinic.example>';
    secret.headers = {
      ...(secret.headers as Record<string, string>),
      'List-Unsubscribe': '<https://x/SECRET-U>',
    };
    expect(renderFromFrame(secret)?.toString()).toContain('SECRET-BODY');
    expect(roots).toHaveLength(1);
    const held: unknown[] = [];
    const walk = (node: MimeNode) => {
      const n = node as unknown as { content?: unknown; _headers: unknown[]; childNodes: MimeNode[] };
      held.push(n.content, n._headers);
      n.childNodes.forEach(walk);
    };
    walk(roots[0]!);
    expect(JSON.stringify(held)).not.toMatch(/SECRET|patient1@/);
  });

  it('leave copies they do not cover to the composer', () => {
    const base = copy(1, { text: 'Hello' });
    const uncovered: Mail.Options[] = [
      { ...base, to: 'patient@example.org' },
      { ...base, cc: 'nurse@example.org' },
      { ...base, attachments: [{ filename: 'a.txt', content: 'a' }] },
      { ...base, headers: { Subject: 'twice' } },
      { ...base, headers: { 'Content-Type': 'text/html' } },
      { ...base, headers: { 'X-Ref': '1', 'x-ref': '2' } },
      { ...base, headers: { 'X-Ref': '1', 'X-Ref ': '2' } },
      { ...base, headers: { 'From ': 'someone@example.org' } },
      { ...base, headers: { ' Content-Type': 'text/html' } },
      { ...base, headers: { 'X-Ref': ['1', '2'] } as never },
      { ...base, messageId: undefined },
      { ...base, date: undefined },
      { ...base, baseBoundary: undefined },
      { ...base, baseBoundary: 'with space' },
      { ...base, textEncoding: 'base64' },
      { ...base, newline: '\n' },
    ];
    for (const [i, options] of uncovered.entries())
      expect({ i, raw: renderFromFrame(options) }).toEqual({ i, raw: undefined });
  });
});

/** Text of one character set: plain ASCII, graphemes, any code point (controls too), or a mix that encoders escape. */
const textOf = (maxLength: number) =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({
      unit: fc.constantFrom('a', ' ', '\t', '.', '=', '?', '_', 'ü', 'é', '診', '😀', '\u0007'),
      maxLength,
    }),
  );

/** A body of lines of varying length (up to past the 998 a line may have), joined by CRLF, LF or CR. */
const body = fc
  .tuple(
    fc.array(fc.oneof(textOf(80), textOf(1200)), { minLength: 1, maxLength: 6 }),
    fc.constantFrom('\r\n', '\n', '\r'),
  )
  .map(([lines, newline]) => lines.join(newline));

/** A message shape (sender, header names, parts) and copies of it with their own subject, header values and bodies. */
const copiesOfAShape = fc
  .record({
    fromName: fc.constantFrom('Clinic', 'Clinic Néws', '診療所', ''),
    names: fc.uniqueArray(
      fc.constantFrom(
        'X-Campaign',
        'List-Unsubscribe',
        'List-Unsubscribe-Post',
        'X-Entity-Ref-ID',
        'Precedence',
      ),
      { maxLength: 4 },
    ),
    parts: fc.constantFrom('text', 'html', 'both'),
  })
  .chain((shape) =>
    fc.record({
      shape: fc.constant(shape),
      copies: fc.array(
        fc.record({
          subject: textOf(120),
          values: fc.array(textOf(100), { minLength: shape.names.length, maxLength: shape.names.length }),
          text: body,
          html: body.map((b) => `<p>${b}</p>`),
          date: fc.date({
            min: new Date(Date.UTC(1990, 0, 1)),
            max: new Date(Date.UTC(2090, 0, 1)),
            noInvalidDate: true,
          }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  );

describe('copies written from a frame, generated', () => {
  it("are what the composer renders from each copy's own options, for any subject, header values and bodies", async () => {
    let n = 1000;
    await fc.assert(
      fc.asyncProperty(copiesOfAShape, async ({ shape, copies }) => {
        for (const c of copies) {
          // The copy's own Message-ID, date and boundary base, as in copy(): the composer would otherwise draw them.
          const options = copy(++n, {
            from: { address: 'news@clinic.example', name: shape.fromName },
            subject: c.subject,
            date: c.date,
            headers: Object.fromEntries(shape.names.map((name, i) => [name, c.values[i]!])),
            ...(shape.parts !== 'html' && { text: c.text }),
            ...(shape.parts !== 'text' && { html: c.html }),
          });
          const ours = renderFromFrame(options)?.toString();
          expect(ours).toBeDefined();
          expect(ours).toBe(await compose(options));
        }
      }),
      { numRuns: 60 },
    );
  });
});
