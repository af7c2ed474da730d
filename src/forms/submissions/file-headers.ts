/** Response headers for an uploaded file: its type, a safe file name, and a policy that never runs it as a page. */

/** Headers for sending an uploaded file; `inline` lets an image be shown in an <img> of the console. */
export function attachmentHeaders(
  name: string,
  contentType: string,
  inline: boolean,
): Record<string, string> {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return {
    'content-type': contentType,
    'content-disposition': `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
    'cache-control': 'no-store',
  };
}
