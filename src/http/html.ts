/**
 * HTML built with a tagged template that escapes every interpolated value unless it is already `SafeHtml` (made by
 * `html` itself or, for markup that is known to be safe, `raw`). Arrays are joined; null, undefined and false render
 * nothing. Pages never concatenate strings into HTML by hand; the escape itself is `markup/escape.ts`.
 */
import { escapeHtml } from '../markup/escape.ts';

/** Markup that is safe to insert as is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** A value that may be placed in an `html` template. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value as string | number | boolean));
}

/** The tagged template: `html\`<p>${text}</p>\`` escapes `text`. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Marks markup as safe without escaping: only markup Sealpost produced itself (an SVG it rendered) or sanitized. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** Text escaped, with each line break shown as `<br>`. */
export function withBreaks(text: string): SafeHtml {
  return new SafeHtml(escapeHtml(text).replace(/\r?\n/g, '<br>'));
}
