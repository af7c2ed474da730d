import { describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { arfMessage, dsnMessage } from '../test/reports.ts';
import { readReport, REPORT_PARSE_OPTIONS } from './reports.ts';

const parse = (raw: string) => simpleParser(raw, REPORT_PARSE_OPTIONS).then(readReport);
const to = 'b-t1-000000000000000000000000@bounces.example.org';

describe('delivery reports', () => {
  it('reads a failed recipient of a DSN: permanent, its status, and the unfolded diagnostic without its type', async () => {
    expect(
      await parse(
        dsnMessage({
          to,
          recipient: 'Gone@Patients.example',
          action: 'failed',
          status: '5.1.1',
          diagnostic: '550 5.1.1 User unknown',
        }),
      ),
    ).toEqual({
      type: 'bounce',
      permanent: true,
      status: '5.1.1',
      recipient: 'gone@patients.example',
      response: '550 5.1.1 User unknown',
    });
  });

  it('reads a delayed recipient as temporary', async () => {
    const report = await parse(
      dsnMessage({
        to,
        recipient: 'a@b.example',
        action: 'delayed',
        status: '4.4.1',
        diagnostic: '421 4.4.1 timeout',
      }),
    );
    expect(report).toMatchObject({ type: 'bounce', permanent: false, status: '4.4.1' });
  });

  it('skips per-recipient blocks that were delivered or relayed, and reads a global delivery-status part', async () => {
    const raw = dsnMessage({
      to,
      recipient: 'x@b.example',
      action: 'failed',
      status: '5.2.2',
      diagnostic: '552 full',
    })
      .replace('Content-Type: message/delivery-status', 'Content-Type: message/global-delivery-status')
      .replace(
        'Final-Recipient: rfc822; x@b.example',
        'Final-Recipient: rfc822; ok@b.example\r\nAction: relayed\r\nStatus: 2.0.0\r\n\r\nFinal-Recipient: rfc822; x@b.example',
      );
    expect(await parse(raw)).toMatchObject({ permanent: true, status: '5.2.2', recipient: 'x@b.example' });
  });

  it('reads an abuse feedback report as a complaint, and ignores not-spam and mail that is no report', async () => {
    expect(await parse(arfMessage({ to, recipient: 'p@b.example' }))).toEqual({
      type: 'complaint',
      feedbackType: 'abuse',
      recipient: 'p@b.example',
      response: 'feedback report: abuse (SomeGenerator/1.0)',
    });
    expect(await parse(arfMessage({ to, recipient: 'p@b.example', feedbackType: 'not-spam' }))).toBeNull();
    expect(
      await parse(`From: a@b.example\r\nTo: ${to}\r\nSubject: Away\r\n\r\nOut of office.\r\n`),
    ).toBeNull();
  });
});
