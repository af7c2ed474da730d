/** Server-rendered pages: the shared layout and the response headers every page is sent with. No scripts, no external assets. */

import { html, raw, type SafeHtml } from './html.ts';

/** A page ready to send. */
export interface HtmlPage {
  status: number;
  html: string;
}

/** Response headers of every server-rendered page: nothing cached, nothing leaked onward, nothing loaded from elsewhere, no framing. */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-robots-tag': 'noindex, nofollow',
};

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:52rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid #dde1e7;border-radius:6px}
h1{font-size:1.3rem;margin:0 0 1rem;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0 0 1.2rem;font-size:.95rem}
dt{color:#5a6270}dd{margin:0;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font:inherit;margin:0}
iframe{width:100%;height:70vh;border:1px solid #dde1e7;border-radius:4px;background:#fff}
section{margin-top:1.2rem}h2{font-size:1rem;margin:0 0 .5rem}
ul{padding-left:1.2rem}footer{margin-top:1.5rem;font-size:.85rem;color:#5a6270}
.refused{background:#fdecec;border:1px solid #e0a3a3;border-radius:6px;padding:.6rem .8rem}
`;

/** A complete HTML document: the title, the shared style and `body` inside one `<main>`. */
export function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<style>${raw(STYLE)}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.value;
}
