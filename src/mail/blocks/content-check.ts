/**
 * Checks of an email before it goes out: images without alt text, links that are not https, an email that is only
 * images, and no unsubscribe link. They warn; they do not refuse (a transactional template may rightly have no
 * unsubscribe link). Run on the finished HTML, so they see what is sent whatever the editor.
 */
import { findLinks } from '../links.ts';

/** One finding, in words a marketer reads. */
export interface ContentWarning {
  code: 'missing_alt' | 'insecure_link' | 'image_only' | 'no_unsubscribe';
  message: string;
}

const IMG = /<img\b[^>]*>/gi;
const ALT = /\balt\s*=\s*("([^"]*)"|'([^']*)')/i;

/** The findings for an email's HTML (with its personalisation fields not yet filled). */
export function checkContent(html: string): ContentWarning[] {
  const out: ContentWarning[] = [];
  const images = html.match(IMG) ?? [];
  const noAlt = images.filter((img) => {
    const m = ALT.exec(img);
    return !m || !(m[2] ?? m[3] ?? '').trim();
  }).length;
  if (noAlt > 0)
    out.push({ code: 'missing_alt', message: `${noAlt} image${noAlt > 1 ? 's have' : ' has'} no alt text.` });
  const insecure = findLinks(html)
    .map((l) => l.url)
    .filter((u) => /^http:/i.test(u.trim()));
  for (const url of new Set(insecure))
    out.push({ code: 'insecure_link', message: `The link ${url} does not use https.` });
  if (images.length > 0 && visibleText(html).length < 20)
    out.push({
      code: 'image_only',
      message: 'The email is only images: add text, or it may be read as spam.',
    });
  if (!/\{\{\{?\s*unsubscribe_url\s*\}?\}\}/.test(html))
    out.push({
      code: 'no_unsubscribe',
      message: 'There is no unsubscribe link: add a footer block (campaigns add a plain one when sent).',
    });
  return out;
}

function visibleText(html: string): string {
  return html
    .replace(/<(style|script|head)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|&#160;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
