/**
 * Server-rendered public pages (hosted forms, unsubscribe, preferences, opt-in confirmation, secure messages): one
 * layout and one stylesheet, the account's brand (logo, name, colour, postal address) around the content, and the
 * response headers every page is sent with. No scripts in the layout, no external assets.
 */
import type { Brand } from '../markup/brand.ts';
import { html, raw, type SafeHtml } from './html.ts';

/** A page ready to send. */
export interface HtmlPage {
  status: number;
  html: string;
}

/** The brand a page shows (the account's, from `accounts/brand.service.ts`). */
export type PageBrand = Brand;

/** Response headers of every server-rendered page: nothing cached, nothing leaked onward, nothing loaded from elsewhere, no framing. */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-robots-tag': 'noindex, nofollow',
};

/** The neutral look of a page without a brand. */
const NO_BRAND = { colour: '#1f4fd1', onColour: '#ffffff', textColour: '#1f4fd1' };

/** The one stylesheet of public pages: contrast at least 4.5:1, 16 px inputs and 44 px targets on phones. */
export const PUBLIC_STYLE = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;background:#f4f5f7;color:#1d2330;line-height:1.5;font-size:1rem}
a{color:var(--accent)}:focus-visible{outline:3px solid #f0a30a;outline-offset:2px}
.pb-head{background:#fff;border-top:6px solid var(--brand);border-bottom:1px solid #dde1e7}
.pb-head div,.pb-foot div{max-width:var(--width,52rem);margin:0 auto;padding:.75rem 1.5rem;display:flex;align-items:center;gap:.75rem;flex-wrap:wrap}
.pb-logo{max-height:48px;max-width:12rem;width:auto;height:auto}
.pb-name{font-weight:650;font-size:1.1rem;color:#1d2330;overflow-wrap:anywhere}
main{max-width:var(--width,52rem);margin:1.5rem auto;padding:1.5rem;background:#fff;border:1px solid #dde1e7;border-radius:8px}
@media (max-width:40rem){main{margin:0;border-radius:0;border-left:0;border-right:0;padding:1.25rem 1rem}.pb-head div,.pb-foot div{padding-left:1rem;padding-right:1rem}}
.pb-foot{color:#4f5866;font-size:.85rem}.pb-foot div{display:block}.pb-foot p{margin:.2rem 0;white-space:pre-line}
h1{font-size:1.4rem;margin:0 0 1rem;overflow-wrap:anywhere;line-height:1.25}
h2{font-size:1.05rem;margin:0 0 .5rem}section{margin-top:1.5rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0 0 1.2rem;font-size:.95rem}
dt{color:#4f5866}dd{margin:0;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font:inherit;margin:0}
iframe{width:100%;height:70vh;border:1px solid #dde1e7;border-radius:4px;background:#fff}
ul{padding-left:1.2rem}main>footer{margin-top:1.5rem;font-size:.85rem;color:#4f5866}
button,.pb-button,.sp-button{font:inherit;font-weight:600;min-height:2.75rem;padding:.6rem 1.2rem;border-radius:6px;border:2px solid var(--brand);background:var(--brand);color:var(--on-brand);cursor:pointer;max-width:100%;text-align:center}
button:hover,.sp-button:hover{filter:brightness(.93)}
button.quiet{background:#fff;color:#a4161a;border-color:#a4161a}
form{margin:0 0 .75rem}
fieldset{border:1px solid #dde1e7;border-radius:6px;padding:.8rem 1rem;margin:0 0 1rem}legend{font-weight:600;padding:0 .3rem}
.choice{display:flex;gap:.6rem;align-items:center;padding:.45rem 0}.choice input{width:1.3rem;height:1.3rem;flex:none}
.refused{background:#fdecec;border:1px solid #e0a3a3;border-radius:6px;padding:.6rem .8rem}
.saved{background:#e7f5ec;border:1px solid #9ccfae;border-radius:6px;padding:.6rem .8rem}
.sp-field{margin:0 0 1rem}.sp-field label,.sp-field legend{display:block;font-weight:600}
.sp-field input:not([type=checkbox]):not([type=radio]),.sp-field select,.sp-field textarea{display:block;width:100%;padding:.5rem;font:inherit;min-height:2.75rem;border:1px solid #8a94a3;border-radius:6px;background:#fff;color:inherit}
.sp-field input[type=checkbox],.sp-field input[type=radio]{width:1.25rem;height:1.25rem;flex:none}
.sp-check,.sp-option{display:flex;align-items:center;gap:.5rem;margin:0}.sp-field .sp-check label,.sp-field .sp-option label{display:flex;align-items:center;flex:1;min-height:2.75rem;min-width:2.75rem;font-weight:normal;margin:0}
.sp-affirmation{font-style:italic;margin:.25rem 0}.sp-error{color:#b00020;margin:.25rem 0 0}.sp-has-error input,.sp-has-error select,.sp-has-error textarea{border-color:#b00020}
.sp-summary{border:2px solid #b00020;border-radius:6px;padding:.5rem 1rem;margin-bottom:1rem}.sp-check-status:empty{display:none}
.sp-hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}.sp-logo{display:block;max-height:80px;max-width:100%;margin:0 0 1rem}
`;

/** The brand's colours as the stylesheet's variables. */
function brandVariables(brand: PageBrand | undefined): string {
  const b = brand ?? NO_BRAND;
  return `:root{--brand:${b.colour};--on-brand:${b.onColour};--accent:${b.textColour}}`;
}

function brandHeader(brand: PageBrand | undefined): SafeHtml | '' {
  if (!brand) return '';
  const logo = brand.logo
    ? html`<img class="pb-logo" src="${brand.logo.url}" alt="" width="${brand.logo.width}" height="${brand.logo.height}">`
    : '';
  return html`<header class="pb-head"><div>${logo}<span class="pb-name">${brand.name}</span></div></header>`;
}

function brandFooter(brand: PageBrand | undefined): SafeHtml | '' {
  if (!brand) return '';
  const address = brand.postalAddress;
  // An address that begins with the name already says it.
  const name = address?.startsWith(brand.name) ? '' : html`<p>${brand.name}</p>`;
  return html`<footer class="pb-foot"><div>${name}${address ? html`<p>${address}</p>` : ''}</div></footer>`;
}

/** What a public document is made of; `css` and `head` are the page's own additions (trusted, already safe). */
export interface PublicDocument {
  title: string;
  body: SafeHtml;
  brand?: PageBrand;
  lang?: string;
  head?: SafeHtml;
  css?: string;
}

/** A complete public HTML document: the shared style, the brand's header and footer, and `body` inside `<main>`. */
export function publicDocument(doc: PublicDocument): string {
  return html`<!doctype html>
<html lang="${doc.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
${doc.head ?? ''}<title>${doc.title}</title>
<style>${raw(PUBLIC_STYLE + brandVariables(doc.brand) + (doc.css ?? '').replace(/<\/(style)/gi, '<\\/$1'))}</style>
</head>
<body>
${brandHeader(doc.brand)}
<main>
${doc.body}
</main>
${brandFooter(doc.brand)}
</body>
</html>
`.value;
}

/** A complete HTML document: the title, the shared style and `body` inside one `<main>`, under the brand if given. */
export function layout(title: string, body: SafeHtml, brand?: PageBrand): string {
  return publicDocument({ title, body, ...(brand && { brand }) });
}
