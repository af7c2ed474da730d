/**
 * Block editor: the per-copy cost of a campaign written as a block document against the same campaign written as raw
 * HTML. MJML runs once, when the document is saved; each copy then goes through the same per-copy rendering
 * (personalisation, tracked links, unsubscribe link) as any mailing. Both campaigns render `count` copies in turn, a
 * few rounds each, best round kept.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { renderDocument } from '../src/mail/blocks/blocks.render.ts';
import { renderEmail, type EmailTemplate } from '../src/marketing/deliveries/content.ts';
import type { BlockDocument } from '../src/mail/blocks/blocks.schemas.ts';
import { fmt, type BenchRow } from './support.ts';

/** A newsletter of six block kinds. */
const DOCUMENT: BlockDocument = {
  version: 1,
  blocks: [
    { type: 'heading', text: 'Hello {{first_name}}', level: 1 },
    {
      type: 'paragraph',
      html: '<p>Our clinic opens <strong>earlier</strong> from Monday. <a href="https://clinic.example/hours">See the hours</a>.</p>',
    },
    { type: 'image', src: 'https://clinic.example/entrance.png', alt: 'The new entrance' },
    { type: 'button', text: 'Book a visit', href: 'https://clinic.example/book' },
    { type: 'divider' },
    { type: 'footer' },
  ],
};

/** The same newsletter written by hand as inline-styled HTML. */
const RAW_HTML = `<!doctype html>
<html><body style="margin:0;padding:0;background:#f4f5f7">
<div style="max-width:600px;margin:0 auto;padding:24px;background:#ffffff;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:#1d2330">
<h1 style="margin:0 0 16px;font-size:28px">Hello {{first_name}}</h1>
<p>Our clinic opens <strong>earlier</strong> from Monday. <a href="https://clinic.example/hours" style="color:#0b5cad">See the hours</a>.</p>
<p><img src="https://clinic.example/entrance.png" alt="The new entrance" width="552" style="display:block;max-width:100%;height:auto"></p>
<p style="text-align:center"><a href="https://clinic.example/book" style="display:inline-block;padding:12px 24px;background:#0b5cad;color:#ffffff;border-radius:6px;font-weight:bold;text-decoration:none">Book a visit</a></p>
<hr style="border:0;border-top:1px solid #d5d9e0">
</div>
<div style="max-width:600px;margin:0 auto;padding:16px 24px;font-family:Arial,Helvetica,sans-serif;font-size:12px;color:#5a6270;text-align:center">
<p>{{postal_address}}</p>
<p><a href="{{unsubscribe_url}}" style="color:#5a6270">Unsubscribe</a> · <a href="{{preferences_url}}" style="color:#5a6270">Manage your subscriptions</a></p>
</div>
</body></html>
`;

const template = (html: string, text: string | null): EmailTemplate => ({
  subject: 'News for {{first_name}}',
  html,
  text,
  fromEmail: 'news@clinic.example',
  fromName: 'Clinic',
  customerName: 'Clinic',
  postalAddress: '1 Main Street\nSpringfield',
});

/** Renders `count` copies; answers the seconds taken. */
function renderCopies(t: EmailTemplate, count: number, key: Buffer): number {
  const started = performance.now();
  let bytes = 0;
  for (let i = 1; i <= count; i++) {
    const out = renderEmail(
      t,
      { id: i, email: `patient${i}@example.org` },
      { email: `patient${i}@example.org`, first_name: `Pat${i}`, last_name: 'Doe', custom: {} },
      { publicUrl: 'https://mail.clinic.example', key },
    );
    bytes += out.html!.length;
  }
  if (bytes === 0) throw new Error('nothing rendered');
  return (performance.now() - started) / 1000;
}

/** Runs the benchmark for a campaign of `count` copies. */
export async function blocksBench(count: number, rounds = 3): Promise<BenchRow[]> {
  const key = randomBytes(32);
  const mjmlStarted = performance.now();
  const rendered = await renderDocument(DOCUMENT);
  const mjmlMs = performance.now() - mjmlStarted;
  // The block path stores the rendered HTML and text; a client sending the same email as HTML sends that HTML.
  const blocks = template(rendered.html, rendered.text);
  const sameAsRaw = template(rendered.html, null);
  const handWritten = template(RAW_HTML, null);
  let best = { blocks: Infinity, raw: Infinity, hand: Infinity };
  for (let r = 0; r < rounds; r++) {
    best = {
      raw: Math.min(best.raw, renderCopies(sameAsRaw, count, key)),
      blocks: Math.min(best.blocks, renderCopies(blocks, count, key)),
      hand: Math.min(best.hand, renderCopies(handWritten, count, key)),
    };
  }
  const perCopy = (s: number) => `${fmt((s / count) * 1e6, 1)} µs/copy`;
  const name = `block editor: ${count.toLocaleString('en')} copies of a block-document campaign (HTML ${fmt(rendered.html.length / 1024, 1)} KB; MJML ran once, ${fmt(mjmlMs)} ms with its first load)`;
  return [
    {
      name: `${name} vs the same campaign sent as raw HTML`,
      measured: `${fmt(best.blocks, 2)} s, ${perCopy(best.blocks)}`,
      baseline: `${fmt(best.raw, 2)} s, ${perCopy(best.raw)} (raw html_part)`,
      ratio: best.blocks / best.raw,
      target: 'per-copy cost ≤ 1.2× raw HTML',
      met: best.blocks / best.raw <= 1.2,
    },
    {
      name: `${name} vs a shorter hand-written version without MJML's Outlook tables (${fmt(RAW_HTML.length / 1024, 1)} KB)`,
      measured: `${fmt(best.blocks, 2)} s, ${perCopy(best.blocks)}`,
      baseline: `${fmt(best.hand, 2)} s, ${perCopy(best.hand)} (hand-written HTML)`,
      ratio: best.blocks / best.hand,
      target: 'none: shows what the larger markup costs per copy',
      met: true,
    },
  ];
}
