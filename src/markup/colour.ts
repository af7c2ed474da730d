/**
 * Readable colours from a brand colour (WCAG 2.x relative luminance and contrast ratio): the text colour to put on
 * it, and a shade of it dark enough to be text on white. Pages and emails both use these, so a pale or a loud brand
 * colour never makes text unreadable.
 */

/** A `#rrggbb` colour, lower case. */
export const HEX_COLOUR = /^#[0-9a-f]{6}$/;

/** The colour used when an account chose none. */
export const DEFAULT_BRAND_COLOUR = '#1f4fd1';

/** The contrast text needs against its background (WCAG AA, normal text). */
const AA = 4.5;

function channels(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The contrast ratio of two colours, 1 to 21. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Normalises `#RGB` / `#RRGGBB` (any case) to `#rrggbb`; undefined for anything else. */
export function normaliseColour(input: string): string | undefined {
  const s = input.trim().toLowerCase();
  if (/^#[0-9a-f]{3}$/.test(s)) return `#${[...s.slice(1)].map((c) => c + c).join('')}`;
  return HEX_COLOUR.test(s) ? s : undefined;
}

/** The text colour on a background of `bg`: black or white, whichever contrasts more (always at least 4.58:1). */
export function foregroundOn(bg: string): string {
  return contrast(bg, '#000000') >= contrast(bg, '#ffffff') ? '#000000' : '#ffffff';
}

/** `colour` darkened just enough to be read as text (links, accents) on white; itself when it already is. */
export function textShadeOf(colour: string): string {
  let [r, g, b] = channels(colour);
  let hex = colour;
  for (let i = 0; i < 40 && contrast(hex, '#ffffff') < AA; i++) {
    [r, g, b] = [r, g, b].map((c) => Math.floor(c * 0.9)) as [number, number, number];
    hex = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
  }
  return hex;
}
