/** Sending a mailing from the console as a person does: the review page, then its confirmed send form. */
import type { ConsoleClient } from '../console.test-support.ts';

/** What the send form asks for. */
export interface SendChoice {
  list: string;
  send_at?: string;
  tz?: string;
}

/** The review page of a send, and the confirmation its form carries (undefined when it offers no send). */
export async function reviewSend(client: ConsoleClient, mailingId: string, choice: SendChoice) {
  const q = new URLSearchParams({ list: choice.list, send_at: choice.send_at ?? '', tz: choice.tz ?? 'UTC' });
  const page = await client.get(`/console/campaigns/mailings/${mailingId}/review?${q}`);
  return { page, confirm: /name="confirm" value="([^"]+)"/.exec(page.body)?.[1] };
}

/** Reviews and confirms a send; answers the send action's response. */
export async function confirmedSend(client: ConsoleClient, mailingId: string, choice: SendChoice) {
  const { page, confirm } = await reviewSend(client, mailingId, choice);
  if (!confirm) throw new Error(`the review page offered no send (${page.statusCode})`);
  return client.post(`/console/campaigns/mailings/${mailingId}/send`, {
    _csrf: client.csrf,
    list: choice.list,
    send_at: choice.send_at ?? '',
    tz: choice.tz ?? 'UTC',
    confirm,
  });
}
