/** The table of subscribers that console pages show: each one's email (linking to their page), name and status. */
import { html, type SafeHtml } from '../../http/html.ts';
import { seg } from './audit.ts';

/** What the table shows of a subscriber. */
export interface SubscriberEntry {
  id: string;
  attributes: {
    email: string | null;
    first_name: string | null;
    last_name: string | null;
    unsubscribed: boolean;
  };
}

/** How the table fills in: its line when nobody is shown, and the status of a subscriber still subscribed. */
export interface SubscriberTableOptions<S extends SubscriberEntry> {
  empty?: string;
  subscribed?(s: S): SafeHtml | string;
}

/** A stacking table of `people`; someone unsubscribed from everything says so, anyone else is `Subscribed`. */
export function subscriberTable<S extends SubscriberEntry>(
  people: readonly S[],
  options: SubscriberTableOptions<S> = {},
): SafeHtml {
  const status = (s: S) =>
    s.attributes.unsubscribed ? 'Unsubscribed from everything' : (options.subscribed?.(s) ?? 'Subscribed');
  return html`<table class="stack">
    <thead>
      <tr>
        <th scope="col">Email</th>
        <th scope="col">Name</th>
        <th scope="col">Status</th>
      </tr>
    </thead>
    <tbody>
      ${
        people.length === 0 && options.empty
          ? html`<tr>
              <td colspan="3">${options.empty}</td>
            </tr>`
          : ''
      }
      ${people.map(
        (s) =>
          html`<tr>
            <td data-label="Email">
              <a href="/console/audiences/subscribers/${seg(s.id)}">${s.attributes.email}</a>
            </td>
            <td data-label="Name">${[s.attributes.first_name, s.attributes.last_name].filter(Boolean).join(' ')}</td>
            <td data-label="Status">${status(s)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
