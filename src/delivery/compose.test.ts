import { simpleParser, type AddressObject } from 'mailparser';
import { expect, it, onTestFinished } from 'vitest';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import MimeNode from 'nodemailer/lib/mime-node/index.js';
import { composeMessage } from './compose.ts';
import { transferEncoding } from './mime-build.ts';
import { renderMime, type RenderJob } from './render.ts';
import { createRenderPool } from './render-pool.ts';
import type { DeliveryItem, MessageContent } from './model.ts';

const item = (recipientId: number, address: string): DeliveryItem => ({
  recipientId,
  reference: 'msg-many',
  customerId: 1,
  address,
  final: false,
  headerMessageId: '<many@clinic.example>',
  envelopeFrom: 'desk@clinic.example',
  createdAt: Date.now(),
  allowNonTls: false,
  forceSecure: false,
  openTracking: true,
  linkTracking: true,
  content: null,
  dkim: [],
});

const addresses = (field: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((o) => o.value.map((v) => v.address));

it('gives every copy of a many-recipient message the full To and Cc lists, with that copy’s own tracking', async () => {
  const to = Array.from({ length: 300 }, (_, i) => ({
    address: `patient${i}@example.org`,
    name: `Patient ${i} Ünïcode`,
  }));
  const cc = Array.from({ length: 20 }, (_, i) => ({ address: `nurse${i}@example.org`, name: '' }));
  const content: MessageContent = {
    subject: 'Results',
    from: { address: 'desk@clinic.example', name: 'Desk' },
    to,
    cc,
    headers: { 'X-Ref': '7' },
    text: 'Hello',
    html: '<p><a href="https://portal.example/">portal</a></p>',
    attachments: [],
  };
  const tracker = {
    rewriteLinks: (html: string, recipientId: number) =>
      html.replace('https://portal.example/', `https://t.example/c/${recipientId}`),
    openPixelUrl: (recipientId: number) => `https://t.example/o/${recipientId}.gif`,
  };
  // Rendered on a render thread, as a worker process renders.
  const renderer = createRenderPool(1).open();
  onTestFinished(() => renderer.close());
  for (const [id, address] of [
    [1, 'patient0@example.org'],
    [2, 'patient299@example.org'],
    [3, 'nurse5@example.org'],
  ] as const) {
    const parsed = await simpleParser(await composeMessage(item(id, address), content, tracker, renderer));
    expect(addresses(parsed.to)).toEqual(to.map((m) => m.address));
    expect(addresses(parsed.cc)).toEqual(cc.map((m) => m.address));
    expect((parsed.to as AddressObject).value[1]!.name).toBe('Patient 1 Ünïcode');
    expect(parsed.headers.get('x-ref')).toBe('7');
    expect(parsed.html).toContain(`https://t.example/c/${id}`);
    expect(parsed.html).toContain(`https://t.example/o/${id}.gif`);
    expect([...parsed.headers.keys()].filter((k) => k.startsWith('x-sealpost'))).toEqual([]);
  }
});

it('builds To and Cc lines once for a message with more copies, on the render thread for its only one', async () => {
  const to = Array.from({ length: 40 }, (_, i) => ({ address: `p${i}@example.org`, name: `Pätient ${i}` }));
  const cc = [{ address: 'nurse@example.org', name: 'Nurse, "Day" shift' }];
  const content = (): MessageContent => ({
    subject: 'Results',
    from: { address: 'desk@clinic.example', name: 'Desk' },
    to,
    cc,
    headers: {},
    text: 'Hello',
    attachments: [],
  });
  const tracker = { rewriteLinks: (html: string) => html, openPixelUrl: () => '' };
  const pool = createRenderPool(1).open();
  onTestFinished(() => pool.close());
  // What each copy handed the renderer for its address lines.
  const splices: RenderJob['splice'][] = [];
  const renderer = { render: (job: RenderJob) => (splices.push(job.splice), pool.render(job)) };
  const headerLines = (raw: Buffer) => {
    const head = raw.toString('utf8', 0, raw.indexOf('\r\n\r\n'));
    return head.split(/\r\n(?=\S)/).filter((l) => /^(To|Cc):/.test(l));
  };
  const kept = await composeMessage(
    { ...item(1, 'p0@example.org'), othersPending: true },
    content(),
    tracker,
    renderer,
  );
  const alone = await composeMessage(
    { ...item(1, 'p0@example.org'), othersPending: false },
    content(),
    tracker,
    renderer,
  );
  expect(splices[0]).toHaveProperty('lines');
  expect(splices[1]).toMatchObject({ to, cc });
  expect(splices[1]).not.toHaveProperty('lines');
  // Both read as nodemailer's composer renders the same lists.
  const composed = await renderMime({ from: 'desk@clinic.example', to, cc, text: 'Hello' });
  expect(headerLines(alone)).toEqual(headerLines(composed));
  expect(headerLines(kept)).toEqual(headerLines(composed));
  expect(headerLines(alone)[0]!.split('\r\n').length).toBeGreaterThan(10);
});

const BODIES = [
  'Short lines\r\nof plain ASCII',
  'word '.repeat(40),
  `<p>${'word '.repeat(40)}</p>`,
  'Grüße aus der Praxis, bitte bringen Sie Ihre Karte mit.',
  '診察のご予約を承りました。ご来院をお待ちしております。',
  'Mostly 日本語のテキストです text',
  'A tab\there and a bell \u0007 and a form feed \u000c',
  '\u0000\u0001 binary-ish ab',
  `${'é'.repeat(10)}${'a'.repeat(10)}`,
  `${'é'.repeat(10)}${'a'.repeat(11)}`,
  '😀 emoji count as two code units each 😀😀😀',
];

it("gives each body the transfer encoding nodemailer's composer would choose for it", () => {
  for (const body of [...BODIES, '']) {
    const node = new MimeNode('text/html');
    node.setContent(body);
    const theirs = node.getTransferEncoding();
    const ours = transferEncoding(body);
    if (ours === undefined) expect({ body, theirs }).toEqual({ body, theirs: body ? '7bit' : false });
    else expect({ body, encoding: ours }).toEqual({ body, encoding: theirs });
  }
});

it("renders byte for byte what nodemailer's composer renders, whatever the parts", async () => {
  const base = {
    from: { address: 'desk@clinic.example', name: 'Desk' },
    to: [{ address: 'patient@example.org', name: 'Patient Ünïcode' }],
    subject: 'Ihre Ergebnisse',
    messageId: '<fixed@clinic.example>',
    date: new Date('2026-11-27T08:00:00Z'),
    headers: { 'X-Ref': '7' },
    baseBoundary: 'fixedboundary',
  };
  const attachment = { filename: 'results.csv', contentType: 'text/csv', content: Buffer.from('a,b\n1,2\n') };
  for (const body of BODIES)
    for (const parts of [
      { text: body },
      { html: body },
      { text: body, html: `<p>${body}</p>` },
      { html: body, attachments: [attachment] },
    ]) {
      const options = { ...base, ...parts };
      const theirs = await new MailComposer(options).compile().build();
      const ours = await renderMime(options);
      expect({ parts, raw: ours.toString('binary') }).toEqual({ parts, raw: theirs.toString('binary') });
    }
});

it('renders a copy without tracking once for all recipients of a message, and a tracked copy for each', async () => {
  const pool = createRenderPool(1).open();
  onTestFinished(() => pool.close());
  let renders = 0;
  let failNext = false;
  const renderer = {
    render: (job: Parameters<typeof pool.render>[0]) => {
      renders++;
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error('render thread ended'));
      }
      return pool.render(job);
    },
  };
  const content = (): MessageContent => ({
    subject: 'Clinic closed on Friday',
    from: { address: 'desk@clinic.example', name: 'Desk' },
    to: [{ address: 'a@example.org', name: '' }],
    cc: [{ address: 'b@example.org', name: '' }],
    headers: {},
    text: 'Closed on Friday.',
    html: '<p>Closed on <a href="https://clinic.example/hours">Friday</a>.</p>',
    attachments: [],
  });
  const tracker = {
    rewriteLinks: (html: string, id: number) =>
      html.replace('https://clinic.example/hours', `https://t/${id}`),
    openPixelUrl: (id: number) => `https://t/o/${id}`,
  };
  // A transactional recipient: the message's own content, others of its recipients still to be delivered or not.
  const untracked = (id: number, address: string, othersPending = true): DeliveryItem => ({
    ...item(id, address),
    createdAt: Date.parse('2026-11-27T08:00:00Z'),
    envelopeFrom: `bounces+${id}@clinic.example`,
    openTracking: false,
    linkTracking: false,
    othersPending,
  });

  const plain = content();
  const copies = [];
  // To, Cc and Bcc recipients alike: the envelope alone names the recipient.
  for (const [id, address, othersPending] of [
    [1, 'a@example.org', true],
    [2, 'b@example.org', true],
    [3, 'hidden@example.org', false],
  ] as const)
    copies.push(await composeMessage(untracked(id, address, othersPending), plain, tracker, renderer));
  expect(renders).toBe(1);
  expect(copies[1]!.equals(copies[0]!)).toBe(true);
  expect(copies[2]!.equals(copies[0]!)).toBe(true);
  const parsed = await simpleParser(copies[0]!);
  expect(parsed.html).toContain('https://clinic.example/hours');
  expect(parsed.text).toBe('Closed on Friday.');
  expect(copies[0]!.toString()).not.toContain('hidden@example.org');

  // The last recipient let the copy go: a retry of one of them renders again.
  await composeMessage(untracked(2, 'b@example.org', false), plain, tracker, renderer);
  expect(renders).toBe(2);

  // Another message with the same content gets its own copy (its own Message-ID).
  const other = {
    ...untracked(4, 'a@example.org'),
    reference: 'msg-other',
    headerMessageId: '<other@clinic.example>',
  };
  const otherCopy = await composeMessage(other, plain, tracker, renderer);
  expect(renders).toBe(3);
  expect((await simpleParser(otherCopy)).messageId).toBe('<other@clinic.example>');

  // Tracked copies are each recipient's own.
  const tracked = content();
  const a = await composeMessage(
    { ...item(1, 'a@example.org'), othersPending: true },
    tracked,
    tracker,
    renderer,
  );
  const b = await composeMessage(
    { ...item(2, 'b@example.org'), othersPending: true },
    tracked,
    tracker,
    renderer,
  );
  expect(renders).toBe(5);
  expect(a.toString()).toContain('https://t/1');
  expect(b.toString()).toContain('https://t/2');

  // Content made for one recipient (a campaign copy) is never shared, tracked or not.
  const campaign = content();
  const made = { ...untracked(6, 'a@example.org'), othersPending: undefined };
  await composeMessage(made, campaign, tracker, renderer);
  await composeMessage(made, campaign, tracker, renderer);
  expect(renders).toBe(7);

  // A failed render is not kept: the next recipient renders again.
  const retried = content();
  failNext = true;
  await expect(composeMessage(untracked(1, 'a@example.org'), retried, tracker, renderer)).rejects.toThrow(
    'render thread ended',
  );
  const after = await composeMessage(untracked(2, 'b@example.org'), retried, tracker, renderer);
  expect(renders).toBe(9);
  expect((await simpleParser(after)).subject).toBe('Clinic closed on Friday');
});
