/**
 * The one HTML escape. It sits at the foundation so the delivery engine and the mail kernel, which build small pieces
 * of HTML below the HTTP toolkit, use the same function as the `html` template of `http/html.ts`.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML content and for a single- or double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
