/**
 * The message announcing a finished export to the address its request gave. It carries a link to the console page
 * that downloads the export (sign-in and the account's permission needed, each download audited), never the data: the
 * export stays sealed in the database. It goes through the transactional pipeline from `no-reply@<the account's first
 * verified domain>`, tracking off; an account with no verified domain sends nothing, and the job still finishes.
 */
import { consoleUrl, type AppContext } from '../../context.ts';
import { verifiedDomainNames } from '../../accounts/domains.service.ts';
import { submitSystemMail } from '../../email/system-mail.ts';

/** The console path that downloads a finished export. */
export const exportPagePath = (jobId: number | string) => `/audiences/exports/${jobId}/export.csv`;

/** Mails the link of a finished export to `to`; false when the account has no verified domain to send from. */
export async function mailExportLink(
  ctx: AppContext,
  job: { id: number; customerId: number; rows: number },
  to: string,
): Promise<boolean> {
  const domain = (await verifiedDomainNames(ctx.database.reader, job.customerId))[0];
  if (!domain) {
    ctx.log.warn({ jobId: job.id }, 'export mail not sent: the account has no verified domain to send from');
    return false;
  }
  const link = consoleUrl(ctx, exportPagePath(job.id));
  const text =
    `The subscriber export ${job.id} is ready (${job.rows} subscribers).\n\n` +
    `The export is not attached. Download it from the Sealpost console (sign in when asked):\n${link}\n`;
  await submitSystemMail(
    ctx,
    job.customerId,
    {
      to: [{ address: to, name: '' }],
      from: { address: `no-reply@${domain}`, name: 'Sealpost' },
      subject: 'Your subscriber export is ready',
      text,
    },
    // A job run again after a crash must not mail the link twice.
    { key: `export-mail:${job.id}`, requestHash: String(job.id) },
  );
  return true;
}
