/** Finding and rewriting the links of an HTML body: the `href` of each `<a>` whose target is http(s), by position. */
import { escapeHtml } from '../markup/escape.ts';

/** A link found in HTML. */
export interface FoundLink {
  /** Position among the tracked links, from 0 (the `html_id`). */
  position: number;
  url: string;
}

const ANCHOR_HREF = /(<a\b[^>]*?\bhref\s*=\s*)("([^"]*)"|'([^']*)'|([^\s>"']+))/gi;

const decodeEntities = (s: string): string =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

function* anchors(html: string): Generator<{ match: RegExpExecArray; url: string }> {
  for (const match of html.matchAll(ANCHOR_HREF)) {
    const raw = match[3] ?? match[4] ?? match[5] ?? '';
    const written = decodeEntities(raw.trim());
    if (!/^https?:\/\//i.test(written)) continue;
    // The URL as a browser would request it: non-ASCII percent-encoded, the host in punycode, line breaks dropped. A
    // target kept this way is always a valid Location header for the click redirect.
    let url: string;
    try {
      url = new URL(written).href;
    } catch {
      continue;
    }
    yield { match: match as RegExpExecArray, url };
  }
}

/** The http(s) links of an HTML body, in document order. */
export function findLinks(html: string): FoundLink[] {
  return [...anchors(html)].map((a, position) => ({ position, url: a.url }));
}

/** Replaces the href of every http(s) link with `replace(position, url)`; other links stay as they are. */
export function rewriteLinks(html: string, replace: (position: number, url: string) => string): string {
  let out = '';
  let last = 0;
  let position = 0;
  for (const { match, url } of anchors(html)) {
    const start = match.index + match[1]!.length;
    out += html.slice(last, start) + `"${escapeHtml(replace(position++, url))}"`;
    last = start + match[2]!.length;
  }
  return out + html.slice(last);
}
