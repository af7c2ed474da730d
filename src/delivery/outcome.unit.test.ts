/** Judging attempts: what a next hop's answer means for the recipient, without a network. */
import { describe, expect, it } from 'vitest';
import { judge } from './outcome.ts';
import { oneLine, outcomeOfError, type SendOutcome } from './smtp-client.ts';

const attempt = (outcome: SendOutcome, number = 1, secure = false) => ({
  outcome,
  secure,
  transport: 'relay',
  number,
  at: 1000,
});

describe('reading SMTP errors', () => {
  it('treats a refused STARTTLS as a next hop that cannot do TLS', () => {
    const err = {
      code: 'ETLS',
      responseCode: 502,
      response: '502 5.5.2 command not recognized',
      command: 'STARTTLS',
    };
    expect(outcomeOfError(err, true).result).toBe('tls-unavailable');
  });

  it('treats a rejected recipient (550) as permanent and a greylisting reply (451) as temporary', () => {
    expect(
      outcomeOfError({ code: 'EENVELOPE', responseCode: 550, response: '550 no such user' }, true).result,
    ).toBe('permanent');
    expect(
      outcomeOfError({ code: 'EMESSAGE', responseCode: 451, response: '451 try later' }, true).result,
    ).toBe('temporary');
  });

  it('treats a refused connection or a timeout as temporary and unreachable', () => {
    expect(
      outcomeOfError({ code: 'ESOCKET', message: 'connect ECONNREFUSED 127.0.0.1:25' }, true),
    ).toMatchObject({
      result: 'temporary',
      unreachable: true,
    });
    expect(outcomeOfError({ code: 'ETIMEDOUT', message: 'Timeout' }, false)).toMatchObject({
      result: 'temporary',
      unreachable: true,
    });
  });

  it('keeps a failed login temporary so that fixing the credentials lets the mail go', () => {
    expect(
      outcomeOfError({ code: 'EAUTH', responseCode: 535, response: '535 authentication failed' }, true)
        .result,
    ).toBe('temporary');
  });

  it('keeps the reply on one line of at most 500 characters', () => {
    expect(oneLine('550-first\r\n550 second')).toBe('550-first 550 second');
    expect(oneLine('x'.repeat(900))).toHaveLength(500);
  });
});

describe('judging an attempt', () => {
  it('marks a notification that was accepted as delivered via secure portal', () => {
    expect(
      judge(attempt({ result: 'accepted', response: '250 ok', tls: false }, 1, true), [100]),
    ).toMatchObject({
      status: 'delivered',
      deliveryStatus: 'delivered via secure portal',
      via: 'relay+secure',
      event: 'delivered',
    });
  });

  it('soft-bounces a temporary failure while the schedule has retries left', () => {
    expect(
      judge(attempt({ result: 'temporary', response: '451 later', tls: true }, 2), [100, 200]),
    ).toMatchObject({
      status: 'deferred',
      deliveryStatus: 'soft bounced',
      event: 'temporary_failure',
    });
  });

  it('hard-bounces a temporary failure on the attempt after the last wait', () => {
    expect(
      judge(attempt({ result: 'temporary', response: '451 later', tls: true }, 3), [100, 200]),
    ).toMatchObject({
      status: 'failed',
      deliveryStatus: 'hard bounced',
      event: 'permanent_failure',
      response: '451 later (gave up after 3 attempts)',
    });
  });
});
