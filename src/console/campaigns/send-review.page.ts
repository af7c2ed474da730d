/**
 * Sending a mailing from the console, in two steps. The mailing page's send form asks for a list (none is chosen for
 * the user) and a time in the user's zone; the review page names the list, how many people the send reaches after
 * unsubscriptions, missing confirmations and the suppression list, the time in the user's zone, and whether a test
 * went out. Only the review's form carries the confirmation the send action requires, and a mailing is sent once: a
 * second click, a reload or a second tab is refused by the server.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { searchAudit } from '../../audit/audit.service.ts';
import { audienceCount, mailingWasSent, type AudienceCount } from '../../marketing/campaigns/audience.ts';
import { createSend } from '../../marketing/campaigns/sends.service.ts';
import { mailingOf } from '../../marketing/mailings/mailings.service.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from '../page.ts';
import { audited, field, seg } from '../audiences/audit.ts';
import { Form, Text } from '../action.schemas.ts';
import { inZone, wallTimeToEpoch, zoneOrUtc } from '../time-zone.ts';
import { when } from '../format.ts';

/** Registers the review page and the send action it confirms. */
export function sendReviewPages(app: FastifyInstance, ctx: AppContext): void {
  registerReviewPage(app, ctx);
  registerSendAction(app, ctx);
}

/** What the send form asked for, read and checked. */
interface SendChoice {
  list: string;
  /** The wall-clock time as typed ('' for now) and the zone it is read in. */
  sendAt: string;
  tz: string;
  /** Epoch ms, or undefined for now. */
  at: number | undefined;
}

const refuse = (message: string) => new AppError('request.invalid', message);

/** Reads the list and time of a send form or review form; refuses a missing list and a time not in the future. */
function readChoice(values: { list?: string; send_at?: string; tz?: string }, now: number): SendChoice {
  const list = (values.list ?? '').trim();
  if (!list) throw refuse('choose the list to send to');
  const tz = zoneOrUtc(values.tz);
  const sendAt = (values.send_at ?? '').trim();
  if (!sendAt) return { list, sendAt, tz, at: undefined };
  const at = wallTimeToEpoch(sendAt, tz);
  if (Number.isNaN(at)) throw refuse('the send time is not a date and time');
  if (at < now - 60_000)
    throw refuse('the send time has passed; choose a later one or leave it empty to send now');
  return { list, sendAt, tz, at };
}

/** The confirmation a review form carries: bound to the session, the mailing, the list and the time. */
function confirmation(c: ConsoleContext, mailingId: string, choice: SendChoice): string {
  return createHmac('sha256', c.csrfToken)
    .update(`send\n${mailingId}\n${choice.list}\n${choice.at ?? 'now'}`)
    .digest('base64url');
}

/** The latest test of the mailing sent from the console, if any. */
async function lastTest(c: ConsoleContext, mailingId: string) {
  const [entry] = await searchAudit(c.ctx.database.reader, {
    customerId: c.account.customer_id,
    action: 'mailing.test_send',
    target: `mailing:${mailingId}`,
    limit: 1,
  });
  return entry && { to: String(entry.detail.to ?? ''), at: entry.at };
}

const people = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'person' : 'people'}`;

/** The list as the review names it: the account's list of everyone says so. */
const audienceName = (a: AudienceCount) =>
  a.isDefault ? `Every contact in the account (${a.listName})` : a.listName;

/** Why members of the list are left out, when some are. */
function leftOut(a: AudienceCount): SafeHtml | string {
  const unreachable = a.members - a.reachable;
  if (unreachable === 0 && a.suppressed === 0) return '';
  const parts = [
    unreachable > 0 ? `${unreachable.toLocaleString('en')} unsubscribed or not confirmed` : '',
    a.suppressed > 0 ? `${a.suppressed.toLocaleString('en')} on the suppression list` : '',
  ].filter(Boolean);
  return html`<span class="hint">of ${a.members.toLocaleString('en')} on the list; left out: ${parts.join(', ')}</span>`;
}

/** Registers the review page (reached by the mailing page's send form, a GET that changes nothing). */
function registerReviewPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/campaigns/mailings/:id/review',
    permission: 'edit_content',
    title: 'Review the send',
    render: async (c) => {
      const m = await mailingOf(ctx, c.account.customer_id, c.params.id!);
      const back = `/console/campaigns/mailings/${seg(m.id)}`;
      const problem = (text: string) => ({
        status: 400,
        body: html`<div class="card">
          <p class="error-text" role="alert">${text}</p>
          <p><a href="${back}">← Back to the mailing</a></p>
        </div>`,
      });
      if (await mailingWasSent(ctx, c.account.customer_id, m.id))
        return problem('This mailing was already sent. Duplicate it on its page to send it again.');
      let choice: SendChoice;
      try {
        choice = readChoice(c.query, Date.now());
      } catch (err) {
        if (err instanceof AppError) return problem(`Nothing was sent: ${err.message}.`);
        throw err;
      }
      const [audience, test] = await Promise.all([
        audienceCount(ctx, c.account.customer_id, choice.list),
        lastTest(c, String(m.id)),
      ]);
      return { body: reviewCard(c, m.attributes.subject, back, choice, audience, test) };
    },
  });
}

function reviewCard(
  c: ConsoleContext,
  subject: string,
  back: string,
  choice: SendChoice,
  a: AudienceCount,
  test: { to: string; at: string } | undefined,
): SafeHtml {
  const time =
    choice.at === undefined
      ? 'Now, as soon as you press the button'
      : `${inZone(choice.at, choice.tz)}${choice.tz === 'UTC' ? '' : `, ${when(choice.at)}`}`;
  const id = back.split('/').pop()!;
  return html`<div class="card review">
    <h2>Check before sending</h2>
    <dl class="facts">
      <dt>Mailing</dt>
      <dd>${subject}</dd>
      <dt>To</dt>
      <dd>${audienceName(a)}</dd>
      <dt>Recipients</dt>
      <dd data-field="recipients"><strong>${people(a.recipients)}</strong> ${leftOut(a)}</dd>
      <dt>When</dt>
      <dd data-field="when">${time}</dd>
      <dt>Test</dt>
      <dd data-field="test">
        ${
          test
            ? `A test went to ${test.to} at ${when(test.at)}.`
            : html`<strong>No test was sent.</strong> <a href="${back}#test-to">Send yourself a test first</a>`
        }
      </dd>
    </dl>
    ${
      a.recipients === 0
        ? html`<p class="error-text" role="alert">Nobody on this list can receive it. Choose another list.</p>`
        : html`<form method="post" action="${back}/send" data-once>
            ${csrfField(c.csrfToken)}
            <input type="hidden" name="list" value="${choice.list}" />
            <input type="hidden" name="send_at" value="${choice.sendAt}" />
            <input type="hidden" name="tz" value="${choice.tz}" />
            <input type="hidden" name="confirm" value="${confirmation(c, id, choice)}" />
            <button type="submit" class="button">
              ${choice.at === undefined ? `Send to ${people(a.recipients)} now` : `Schedule for ${people(a.recipients)}`}
            </button>
          </form>`
    }
    <p><a href="${back}">← Back to the mailing, nothing sent</a></p>
  </div>`;
}

/** Registers the send action: only a confirmed review sends, and only the mailing's first send. */
function registerSendAction(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/campaigns/mailings/:id/send',
    permission: 'edit_content',
    body: Form({ list: Text(), send_at: Text(), tz: Text(), confirm: Text() }),
    back: (c) => `/console/campaigns/mailings/${seg(c.params.id!)}`,
    handle: async (c) => {
      const m = await mailingOf(ctx, c.account.customer_id, c.params.id!);
      const choice = readChoice(
        { list: field(c, 'list'), send_at: field(c, 'send_at'), tz: field(c, 'tz') },
        Date.now(),
      );
      const expected = Buffer.from(confirmation(c, String(m.id), choice));
      const given = Buffer.from(field(c, 'confirm'));
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw refuse('nothing was sent: review the send and confirm it on the review page');
      const s = await createSend(ctx, c.account.customer_id, {
        mailingId: m.id,
        listId: choice.list,
        sendAt: choice.at,
        firstOnly: true,
      });
      await audited(c, choice.at ? 'send.schedule' : 'send.start', `send:${s.uuid}`, {
        mailing: m.id,
        list: choice.list,
      });
      return {
        redirect: `/console/campaigns/sends/${s.id}`,
        flash: choice.at ? 'The send is scheduled.' : 'The send has started.',
      };
    },
  });
}
