/** The SPF includes well-known relays document for their customers' domains, by the relay's submission host. */

const INCLUDES: readonly [RegExp, string][] = [
  [/(^|\.)sendgrid\.net$/, 'sendgrid.net'],
  [/^email-smtp\.[a-z0-9-]+\.amazonaws\.com$/, 'amazonses.com'],
  [/(^|\.)mailgun\.org$/, 'mailgun.org'],
  [/(^|\.)postmarkapp\.com$/, 'spf.mtasv.net'],
  [/^smtp(-relay)?\.gmail\.com$/, '_spf.google.com'],
  [/(^|\.)office365\.com$/, 'spf.protection.outlook.com'],
  [/(^|\.)sparkpostmail\.com$/, 'sparkpostmail.com'],
  [/(^|\.)mandrillapp\.com$/, 'spf.mandrillapp.com'],
  [/(^|\.)brevo\.com$|(^|\.)sendinblue\.com$/, 'spf.brevo.com'],
  [/(^|\.)mailjet\.com$/, 'spf.mailjet.com'],
];

/** The `include:` target a relay documents, or undefined when the relay is not one of the known ones. */
export function relayInclude(relayHost: string): string | undefined {
  const host = relayHost.toLowerCase();
  return INCLUDES.find(([pattern]) => pattern.test(host))?.[1];
}
