/** The plain-text part of an email made from its HTML, for mail whose sender gave only HTML. */
import type { convert as Convert } from 'html-to-text';
import { onFirstUse } from '../on-first-use.ts';

const htmlToText = onFirstUse<{ convert: typeof Convert }>('html-to-text');

/** The text part made from the HTML; headings keep their case so personalisation fields stay intact. */
export function textOfHtml(htmlPart: string): string {
  const heading = { options: { uppercase: false } };
  return htmlToText().convert(htmlPart, {
    wordwrap: 78,
    selectors: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, ...heading })),
  });
}
