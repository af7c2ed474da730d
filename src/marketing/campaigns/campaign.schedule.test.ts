/**
 * Scheduled campaign sends: a schedule coming due starts a send through a real STARTTLS SMTP sink, and a cancelled
 * schedule sends nothing.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../test/wait.ts';
import { makeList, makeSubscriber } from '../marketing.test-support.ts';
import { makeMailing } from '../mailings/mailings.test-support.ts';
import { sinkTestBed } from './sends.test-support.ts';

const { acct, sink, call, startWorker } = sinkTestBed();

async function sendState(id: string) {
  const res = await call('GET', `/campaign_mailing_sends/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.attributes as Record<string, number | string | null>;
}

describe('scheduled sends', () => {
  it('answers the jid, waits for send_at, and can be cancelled before it', async () => {
    const list = await makeList(call, 'Scheduled');
    await makeSubscriber(call, 'sched@patients.example', {}, list);
    await makeMailing(call, 'Clinic closed on Friday', {
      from_email: `news@${acct.domain}`,
      text_part: 'Closed Friday.',
    });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const res = await call('POST', '/campaign_mailing_schedules', {
      send_at: later,
      from_email: `news@${acct.domain}`,
      from_name: 'Clinic',
      sender_email: 'editor@clinic.example.org',
      subscription_list_id: list,
      subject: 'Clinic closed on Friday',
      recipient_emails: ['proof-cancelled@clinic.example.org'],
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { send_at: string; send_at_timestamp: string; jid: string };
    expect(Date.parse(data.send_at)).toBe(Date.parse(later));
    expect(data.send_at_timestamp).toBe(String(Math.floor(Date.parse(later) / 1000)));
    expect(data.jid).toMatch(/^[0-9a-f]{24}$/);
    const pending = (await call('GET', '/campaign_mailing_schedules')).json().data as {
      attributes: { jid: string; state: string };
    }[];
    expect(pending.map((s) => s.attributes.jid)).toContain(data.jid);

    startWorker();
    const cancelled = await call('DELETE', `/campaign_mailing_schedules/${data.jid}`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json().data.attributes.state).toBe('cancelled');
    expect((await call('DELETE', `/campaign_mailing_schedules/${data.jid}`)).statusCode).toBe(409);
    expect((await call('DELETE', '/campaign_mailing_schedules/nope')).statusCode).toBe(404);

    // A schedule due in a moment goes out at its time.
    const soon = await call('POST', '/campaign_mailing_schedules', {
      send_at: new Date(Date.now() + 400).toISOString(),
      from_email: `news@${acct.domain}`,
      from_name: 'Clinic',
      sender_email: 'editor@clinic.example.org',
      subscription_list_id: list,
      subject: 'clinic CLOSED on friday ',
      recipient_emails: ['proof-sent@clinic.example.org'],
    });
    expect(soon.statusCode, soon.body).toBe(200);
    const id = String(soon.headers['sealpost-campaign-mailing-send-id']);
    expect((await sendState(id)).state).toBe('scheduled');
    await waitFor(
      async () => (await sendState(id)).state === 'sent',
      15_000,
      50,
      'the scheduled send going out',
    );
    const got = sink.received.filter((m) => m.to.includes('sched@patients.example'));
    expect(got).toHaveLength(1);
    // Named by its subject in any letter case, the mailing goes out with its own subject.
    expect((await got[0]!.parsed()).subject).toBe('Clinic closed on Friday');
    // The cancelled schedule's extra recipient got nothing; the sent one's got the email.
    await waitFor(
      () => sink.received.some((m) => m.to.includes('proof-sent@clinic.example.org')),
      5000,
      20,
      'the extra recipient',
    );
    expect(sink.received.some((m) => m.to.includes('proof-cancelled@clinic.example.org'))).toBe(false);
  });

  it('refuses a send_at that is not RFC 3339, an unknown dynamic list, and a subject naming no mailing', async () => {
    const list = await makeList(call, 'Schedule errors');
    await makeMailing(call, 'Error checks', { from_email: `news@${acct.domain}` });
    const base = {
      from_email: `news@${acct.domain}`,
      from_name: 'C',
      sender_email: 'e@clinic.example.org',
      subscription_list_id: list,
    };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...base, send_at: 'tomorrow', subject: 'Error checks' }, 400, 'send_at'],
      [{ ...base, send_at: '2030-01-01T10:00:00', subject: 'Error checks' }, 400, 'send_at'],
      [{ ...base, send_at: '2030-02-30T10:00:00Z', subject: 'Error checks' }, 400, 'send_at'],
      [
        { ...base, send_at: '2030-01-01T10:00:00Z', subject: 'Error checks', dynamic_list_id: 'abc' },
        404,
        'marketing.dynamic_list_not_found',
      ],
      [
        { ...base, send_at: '2030-01-01T10:00:00Z', subject: 'No such mailing' },
        404,
        'marketing.mailing_not_found',
      ],
      [{ ...base, subject: 'Error checks' }, 400, 'send_at'],
    ];
    for (const [body, status, mention] of cases) {
      const r = await call('POST', '/campaign_mailing_schedules', body);
      expect(r.statusCode, `${JSON.stringify(body)} → ${r.body}`).toBe(status);
      expect(r.body).toContain(mention);
    }
  });
});
