/** A multipart/form-data body as clients build it: text fields, and file parts with a file name and a content type. */
import { randomBytes } from 'node:crypto';

/** One part: a field's value, or a file when `filename` is given. */
export interface Part {
  name: string;
  value: string;
  filename?: string;
  type?: string;
}

/** The body and its content-type header. */
export function multipart(parts: Part[]) {
  const boundary = `----sealpost${randomBytes(8).toString('hex')}`;
  const chunks = parts.map((p) => {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    const type = p.type ? `Content-Type: ${p.type}\r\n` : '';
    return `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n${p.value}\r\n`;
  });
  return {
    payload: Buffer.from(chunks.join('') + `--${boundary}--\r\n`),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}
