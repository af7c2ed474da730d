/** Email addresses as clients send them: `addr@example.com` or `Display Name <addr@example.com>`. */
import addressparser from 'nodemailer/lib/addressparser/index.js';

/** A parsed mailbox. */
export interface Mailbox {
  address: string;
  name: string;
}

const ADDRESS =
  /^[^\s@<>()[\]\\,;:"]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;

/** Parses one mailbox, or returns null when the text is not exactly one valid address. */
export function parseMailbox(text: string): Mailbox | null {
  if (/[\r\n]/.test(text)) return null;
  const parsed = addressparser(text.trim());
  if (parsed.length !== 1) return null;
  const first = parsed[0]!;
  if ('group' in first) return null;
  const address = first.address?.trim() ?? '';
  if (!ADDRESS.test(address) || address.length > 254) return null;
  return { address, name: first.name?.trim() ?? '' };
}

/** The domain of an address, lower-cased. */
export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/** Formats a mailbox for a header. */
export function formatMailbox(m: Mailbox): string {
  return m.name ? `${JSON.stringify(m.name)} <${m.address}>` : m.address;
}
