/**
 * A list's subscribers at `/console/audiences/lists/:id` (search by name or email, status filter, pages of 50, add one)
 * with the list's settings (list-settings.ts); one subscriber's page is in subscriber.page.ts. Everyone may look;
 * changing needs `edit_content`.
 */
import { pageNumber } from '../format.ts';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { requireList, type ListRow } from '../../marketing/lists/lists.service.ts';
import { createSubscriber, subscribersOf } from '../../marketing/subscribers/subscribers.service.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from '../page.ts';
import { audited, field, seg } from './audit.ts';
import { listSettingsAction, listSettingsCard } from './list-settings.ts';
import { unconfirmedMembers } from '../../marketing/optin/optin.service.ts';
import { filterBuilder, filtersJson, readFilterRows, type FilterRow } from './filter-builder.ts';
import { createDynamicList } from '../../marketing/segments/segments.service.ts';
import { AppError } from '../../errors/app-error.ts';
import { Form, Text } from '../action.schemas.ts';
import { subscriberPages } from './subscriber.page.ts';
import { subscriberTable } from './subscriber-table.ts';

const PAGE_SIZE = 50;

/** Registers the subscriber pages and their actions. */
export function subscribersPages(app: FastifyInstance, ctx: AppContext): void {
  listSettingsAction(app, ctx);
  registerListPage(app, ctx);
  registerListActions(app, ctx);
  subscriberPages(app, ctx);
}

/** The filters, search, status and page asked for on a list's page. */
interface ListQuery {
  search: string;
  status: '' | 'subscribed' | 'unsubscribed';
  page: number;
  filterRows: FilterRow[];
  filters: string;
}

/** The subscribers shown on one page of a list, and whether the filters could be applied. */
interface ListMembers {
  shown: Awaited<ReturnType<typeof subscribersOf>>['data'];
  unconfirmed: Set<string>;
  filterError: string;
}

/** Registers a list's page: its subscribers (searched, filtered, paged) and its settings. */
function registerListPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/audiences/lists/:id',
    permission: 'read',
    title: 'Subscribers',
    render: async (c) => {
      const list = await requireList(ctx.database.reader, c.account.customer_id, c.params.id!);
      const q = listQuery(c);
      const members = await listMembers(ctx, c, list, q);
      return { title: `List: ${list.name}`, body: listBody(c, list, q, members) };
    },
  });
}

/** Reads the search, status filter, page number and filter rows from a list page's query. */
function listQuery(c: ConsoleContext): ListQuery {
  const search = (c.query.q ?? '').trim();
  const status = c.query.status === 'subscribed' || c.query.status === 'unsubscribed' ? c.query.status : '';
  const page = pageNumber(c.query.page);
  const filterRows = readFilterRows(c.query);
  return { search, status, page, filterRows, filters: filtersJson(filterRows) };
}

/** One page of a list's subscribers; filters the service refuses are dropped and their error kept to show. */
async function listMembers(
  ctx: AppContext,
  c: ConsoleContext,
  list: ListRow,
  q: ListQuery,
): Promise<ListMembers> {
  const ask = (withFilters: boolean) =>
    subscribersOf(ctx, c.account.customer_id, {
      items: PAGE_SIZE,
      page: q.page,
      search: q.search,
      order_by: 'created_at',
      order: 'desc',
      subscription_list_id: list.uuid,
      ...(q.status && { unsubscribed: q.status === 'unsubscribed' }),
      ...(withFilters && q.filters && { filters: q.filters }),
    });
  let filterError = '';
  const rows = await ask(true).catch((err: unknown) => {
    if (!(err instanceof AppError) || err.code !== 'marketing.filter_invalid') throw err;
    filterError = err.message;
    return ask(false);
  });
  const shown = rows.data;
  const unconfirmed = await unconfirmedMembers(
    ctx,
    list.id,
    shown.map((s) => s.id),
  );
  return { shown, unconfirmed, filterError };
}

/** The URL of another page of the same list view, keeping search, status and filters. */
function pageUrl(base: string, q: ListQuery): (page: number) => string {
  const params = new URLSearchParams({ q: q.search, status: q.status });
  for (const r of q.filterRows.filter((x) => x.field))
    for (const [k, v] of [
      ['f_group', String(r.group + 1)],
      ['f_field', r.field],
      ['f_op', r.op],
      ['f_terms', r.terms],
    ] as const)
      params.append(k, v);
  return (p: number) => `${base}?${params.toString()}&page=${p}`;
}

/** A list's page: the subscribers card, the add form and the list's settings. */
function listBody(c: ConsoleContext, list: ListRow, q: ListQuery, m: ListMembers): SafeHtml {
  const base = `/console/audiences/lists/${seg(list.uuid)}`;
  const qs = pageUrl(base, q);
  return html`<p><a href="/console/audiences">← All lists</a></p>
    <div class="card">
      ${listFilterForm(base, q)}
      ${m.filterError ? html`<p class="flash flash-error" role="alert">The filters were not applied: ${m.filterError}</p>` : ''}
      ${q.filters && !m.filterError && c.can('edit_content') ? saveDynamicForm(c, list, base, q.filters) : ''}
      <p class="muted">${Number(list.subscriber_count).toLocaleString('en')} subscribers on this list. Page ${q.page}.</p>
      ${memberTable(m)}
      ${
        m.unconfirmed.size
          ? html`<p class="hint">
              <span class="badge">Unconfirmed</span> members were sent a confirmation email and receive no campaign
              until they confirm.
            </p>`
          : ''
      }
      <p class="actions">
        ${q.page > 1 ? html`<a href="${qs(q.page - 1)}">← Previous page</a>` : ''}
        ${m.shown.length === PAGE_SIZE ? html`<a href="${qs(q.page + 1)}">Next page →</a>` : ''}
        <a href="/console/audiences/lists/${seg(list.uuid)}/export.csv">Export this list as CSV</a>
      </p>
    </div>
    ${c.can('edit_content') ? addForm(c, list.uuid) : ''} ${listSettingsCard(c, list)}`;
}

/** The search, status and filter form above a list's subscribers. */
function listFilterForm(base: string, q: ListQuery): SafeHtml {
  return html`<form class="filters" method="get" action="${base}" role="search">
    <div class="field"><label for="q">Search name or email</label><input type="text" id="q" name="q" value="${q.search}" /></div>
    <div class="field">
      <label for="status">Status</label>
      <select id="status" name="status">
        ${[
          ['', 'Everyone'],
          ['subscribed', 'Subscribed'],
          ['unsubscribed', 'Unsubscribed'],
        ].map(([v, l]) => html`<option value="${v}" ${v === q.status ? html`selected` : ''}>${l}</option>`)}
      </select>
    </div>
    ${filterBuilder(q.filterRows)}
    <button type="submit">Show</button>
  </form>`;
}

/** The form that saves the applied filters, narrowed to this list, as a dynamic list. */
function saveDynamicForm(c: ConsoleContext, list: ListRow, base: string, filters: string): SafeHtml {
  return html`<form class="filters" method="post" action="/console/audiences/dynamic-lists">
    ${csrfField(c.csrfToken)}
    <input type="hidden" name="filters" value="${onList(filters, list)}" />
    <input type="hidden" name="back" value="${base}" />
    <div class="field">
      <label for="dynamic-name">Save these filters as a dynamic list named</label>
      <input type="text" id="dynamic-name" name="name" required maxlength="255" />
    </div>
    <button type="submit">Save as dynamic list</button>
  </form>`;
}

/** The table of the subscribers shown, with each one's status (or that none match). */
function memberTable(m: ListMembers): SafeHtml {
  return html`<div class="table-wrap">
    ${subscriberTable(m.shown, {
      empty: 'No subscribers match.',
      subscribed: (s) =>
        m.unconfirmed.has(s.id) ? html`<span class="badge">Unconfirmed</span>` : 'Subscribed',
    })}
  </div>`;
}

/** Registers the actions of a list's page: add a subscriber, save the filters as a dynamic list. */
function registerListActions(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/audiences/lists/:id/subscribers',
    permission: 'edit_content',
    body: Form({ email: Text(), first_name: Text(), last_name: Text() }),
    handle: async (c) => {
      const s = await createSubscriber(
        ctx,
        c.account.customer_id,
        { email: field(c, 'email'), first_name: field(c, 'first_name'), last_name: field(c, 'last_name') },
        c.params.id!,
      );
      await audited(c, 'subscriber.create', `subscriber:${s.id}`, { list: c.params.id });
      return {
        redirect: `/console/audiences/subscribers/${seg(s.id)}`,
        flash: `${s.attributes.email} was added.`,
      };
    },
  });

  consoleAction(app, ctx, {
    path: '/console/audiences/dynamic-lists',
    permission: 'edit_content',
    body: Form({ name: Text(), filters: Text(), back: Text() }),
    back: (c) => backTo(field(c, 'back')),
    handle: async (c) => {
      const d = await createDynamicList(ctx, c.account.customer_id, {
        name: field(c, 'name'),
        filters: field(c, 'filters'),
      });
      await audited(c, 'dynamic_list.create', `dynamic_list:${d.id}`, { name: d.attributes.name });
      return {
        redirect: backTo(field(c, 'back')),
        flash: `The dynamic list "${d.attributes.name}" was saved (${d.attributes.subscriber_count ?? 0} subscribers match now).`,
      };
    },
  });
}

/** Filters narrowed to the members of a list (every group gets the list condition), unless it is the default list. */
function onList(filters: string, list: { uuid: string; is_default: number }): string {
  if (list.is_default === 1) return filters;
  const groups = JSON.parse(filters) as unknown[][];
  const member = { field: 'subscription_list', op: 'is', terms: [list.uuid] };
  return JSON.stringify(groups.map((g) => [...g, member]));
}

/** A page inside the audiences pages to return to; anything else goes to the lists. */
function backTo(path: string): string {
  return /^\/console\/audiences\/lists\/[^/?#]+$/.test(path) ? path : '/console/audiences';
}

/** The form that adds one subscriber to the list. */
function addForm(c: ConsoleContext, listId: string): SafeHtml {
  return html`<div class="card">
    <h2>Add a subscriber</h2>
    <form method="post" action="/console/audiences/lists/${seg(listId)}/subscribers">
      ${csrfField(c.csrfToken)}
      <div class="field"><label for="add-email">Email</label><input id="add-email" name="email" type="email" required /></div>
      <div class="field"><label for="add-first">First name</label><input type="text" id="add-first" name="first_name" /></div>
      <div class="field"><label for="add-last">Last name</label><input type="text" id="add-last" name="last_name" /></div>
      <button type="submit" class="button">Add subscriber</button>
    </form>
  </div>`;
}
