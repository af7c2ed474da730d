/**
 * Sealpost's own emails (invitations, password resets, opt-in confirmations, form notifications) in the account's
 * brand: an HTML part laid out in tables with inline styles, as mail clients need (logo and name above, one button in
 * the brand colour with a readable label, the name and postal address below), and a text part saying the same.
 */
import type { Brand } from '../markup/brand.ts';
import { escapeHtml as esc } from '../markup/escape.ts';

/** What a system email says. */
export interface SystemEmail {
  heading: string;
  paragraphs: string[];
  /** The one button, and its link. */
  action?: { label: string; url: string };
  /** Paragraphs after the button. */
  after?: string[];
}

const FONT = "font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

function header(brand: Brand): string {
  const logo = brand.logo
    ? `<img src="${esc(brand.logo.url)}" alt="" width="${Math.min(200, brand.logo.width)}" style="display:block;max-width:200px;height:auto;border:0;margin:0 0 8px">`
    : '';
  return `<tr><td style="padding:20px 28px;border-top:6px solid ${brand.colour};border-bottom:1px solid #dde1e7">${logo}<span style="${FONT};font-size:17px;font-weight:bold;color:#1d2330">${esc(brand.name)}</span></td></tr>`;
}

function button(brand: Brand, action: { label: string; url: string }): string {
  return `<table role="presentation" cellpadding="0" cellspacing="0" style="margin:8px 0 16px"><tr><td style="background:${brand.colour};border-radius:6px"><a href="${esc(action.url)}" style="${FONT};display:inline-block;padding:12px 22px;font-size:16px;font-weight:bold;color:${brand.onColour};text-decoration:none;border-radius:6px">${esc(action.label)}</a></td></tr></table>`;
}

function footer(brand: Brand): string {
  const address = brand.postalAddress ? `<br>${esc(brand.postalAddress).replace(/\n/g, '<br>')}` : '';
  return `<tr><td style="${FONT};padding:16px 28px;font-size:13px;line-height:1.5;color:#4f5866;background:#f4f5f7">${esc(brand.name)}${address}</td></tr>`;
}

const paragraph = (text: string) =>
  `<p style="${FONT};margin:0 0 14px;font-size:16px;line-height:1.5;color:#1d2330">${esc(text)}</p>`;

/** The HTML and text parts of a system email in the brand. */
export function brandedEmail(brand: Brand, email: SystemEmail): { html: string; text: string } {
  const body = [
    `<h1 style="${FONT};margin:0 0 14px;font-size:22px;line-height:1.3;color:#1d2330">${esc(email.heading)}</h1>`,
    ...email.paragraphs.map(paragraph),
    email.action ? button(brand, email.action) : '',
    email.action
      ? `<p style="${FONT};margin:0 0 14px;font-size:13px;color:#4f5866;word-break:break-all">${esc(email.action.url)}</p>`
      : '',
    ...(email.after ?? []).map(paragraph),
  ].join('');
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(email.heading)}</title></head><body style="margin:0;padding:0;background:#f4f5f7"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7"><tr><td align="center" style="padding:24px 8px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;border:1px solid #dde1e7;border-radius:8px">${header(brand)}<tr><td style="padding:24px 28px">${body}</td></tr>${footer(brand)}</table></td></tr></table></body></html>`;
  const text = [
    email.heading,
    '',
    ...email.paragraphs.flatMap((p) => [p, '']),
    ...(email.action ? [`${email.action.label}: ${email.action.url}`, ''] : []),
    ...(email.after ?? []).flatMap((p) => [p, '']),
    '--',
    brand.name,
    ...(brand.postalAddress ? [brand.postalAddress] : []),
    '',
  ].join('\n');
  return { html, text };
}
