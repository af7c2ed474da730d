/**
 * The bounce inbox of the port-25 listener: without authentication it takes mail for the return paths on the bounce
 * domain only (see mail/return-path.ts), each recipient checked at RCPT, so mail to any other address, or to a return
 * path with a forged or damaged tag, is refused before its content is sent. A delivery status notification or feedback
 * report received is applied to the delivery its return path names; any other mail (an auto-reply, say) is accepted
 * and dropped, so the sending server does not retry or bounce it back.
 */
import type { ParsedMail } from 'mailparser';
import type { AppContext } from '../context.ts';
import { bounceDomainOf, readReturnPath } from '../mail/return-path.ts';
import { readReport, type DeliveryReport } from '../mail/reports.ts';

/** What applies a report to a delivery, per kind; each answers how the delivery changed. */
export interface ReportHandlers {
  transactional(recipientId: number, report: DeliveryReport): Promise<string>;
  marketing(deliveryId: number, report: DeliveryReport): Promise<string>;
}

/** An SMTP refusal. */
type Refusal = Error & { responseCode: number };

/** The inbox of a listener that takes reports. */
export interface BounceInbox {
  /** Null when mail to `address` is taken, else the refusal to answer RCPT with. */
  checkRecipient(address: string): Refusal | null;
  /** Applies the report a received message carries to each recipient's delivery; returns the 250 text. */
  receive(parsed: ParsedMail, recipients: string[]): Promise<string>;
}

const refusal = (text: string): Refusal => Object.assign(new Error(text), { responseCode: 550 });

/** The inbox over the configured bounce domain, or null when none is configured (no mail is taken without AUTH). */
export function bounceInbox(ctx: AppContext, handlers: ReportHandlers): BounceInbox | null {
  const domain = bounceDomainOf(ctx.config.bounceDomain);
  if (!domain) return null;
  const key = ctx.keys.returnPath;
  return {
    checkRecipient(address) {
      if (readReturnPath(domain, key, address)) return null;
      const onDomain = address.toLowerCase().endsWith(`@${domain}`);
      return onDomain
        ? refusal('5.1.1 No such return path')
        : refusal('5.7.1 Authentication required: only return paths of this server take mail without it');
    },
    async receive(parsed, recipients) {
      const report = readReport(parsed);
      if (!report) {
        ctx.log.info({ recipients: recipients.length }, 'mail to a return path that is no report: dropped');
        return 'Message received; it is not a delivery report and was dropped';
      }
      for (const address of recipients) {
        const target = readReturnPath(domain, key, address);
        if (!target) continue;
        const effect =
          target.kind === 't'
            ? await handlers.transactional(target.id, report)
            : await handlers.marketing(target.id, report);
        ctx.log.info(
          {
            kind: target.kind === 't' ? 'transactional' : 'marketing',
            delivery: target.id,
            report: report.type,
            ...(report.type === 'bounce' && { status: report.status }),
            effect,
          },
          'delivery report received',
        );
      }
      return 'Report received';
    },
  };
}
