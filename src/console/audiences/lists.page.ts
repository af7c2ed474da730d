/**
 * Audiences at `/console/audiences`: the account's subscription lists with their member counts; create a list, rename
 * or delete one (never the default list). Everyone may look; changing needs `edit_content`. Each change is audited.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { exportListCsv } from '../../marketing/subscribers/csv-export.ts';
import { exportCsvOf } from '../../marketing/exports/exports.service.ts';
import { exportPagePath } from '../../marketing/exports/export-mail.ts';
import { createList, listsOf, removeList, renameListOf } from '../../marketing/lists/lists.service.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from '../page.ts';
import { audited, field, seg } from './audit.ts';
import { Form, NoFields, Text } from '../action.schemas.ts';

/** Registers the lists page and its actions. */
export function listsPages(app: FastifyInstance, ctx: AppContext): void {
  registerListsPage(app, ctx);
  registerListExport(app, ctx);
  registerListActions(app, ctx);
}

type Lists = Awaited<ReturnType<typeof listsOf>>['data'];

/** Registers the lists page: the table of lists, the new list form and the way to imports. */
function registerListsPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/audiences',
    permission: 'read',
    title: 'Audiences',
    render: async (c) => {
      const lists = (await listsOf(ctx, c.account.customer_id)).data;
      const edit = c.can('edit_content');
      return html`${listsTable(c, lists)}
        ${
          edit
            ? html`<div class="card">
                <h2>New list</h2>
                <form method="post" action="/console/audiences/lists">
                  ${csrfField(c.csrfToken)}
                  <div class="field">
                    <label for="new-list">Name</label><input type="text" id="new-list" name="name" required maxlength="255" />
                  </div>
                  <button type="submit" class="button">Create list</button>
                </form>
              </div>`
            : ''
        }
        <div class="card">
          <h2>Import and export</h2>
          <p><a href="/console/audiences/imports">Import subscribers from a CSV file</a> or export a list as CSV from its page.</p>
        </div>`;
    },
  });
}

/** The card with the table of lists, their member counts and (with `edit_content`) their change forms. */
function listsTable(c: ConsoleContext, lists: Lists): SafeHtml {
  const edit = c.can('edit_content');
  return html`<div class="card">
    <h2>Subscription lists</h2>
    <div class="table-wrap">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">List</th>
            <th scope="col">Subscribers</th>
            ${edit ? html`<th scope="col">Change</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${lists.map(
            (l) =>
              html`<tr>
                <td data-label="List">
                  <a href="/console/audiences/lists/${seg(l.id)}">${l.attributes.name}</a
                  >${l.attributes.is_default ? html` <span class="muted">(default: every subscriber)</span>` : ''}
                </td>
                <td data-label="Subscribers">${l.attributes.subscriber_count.toLocaleString('en')}</td>
                ${edit ? html`<td data-label="Change">${changeForms(c, l)}</td>` : ''}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <p class="muted">Deleting a list removes its memberships; the subscribers stay on the default list.</p>
  </div>`;
}

/** A list's rename and delete forms; the default list can be neither. */
function changeForms(c: ConsoleContext, l: Lists[number]): SafeHtml {
  if (l.attributes.is_default) return html`<span class="muted">cannot be renamed or deleted</span>`;
  return html`<form class="inline" method="post" action="/console/audiences/lists/${seg(l.id)}/rename">
      ${csrfField(c.csrfToken)}
      <label for="rename-${l.id}">New name for ${l.attributes.name}</label>
      <input type="text" id="rename-${l.id}" name="name" value="${l.attributes.name}" required maxlength="255" />
      <button type="submit">Rename</button>
    </form>
    <form class="inline" method="post" action="/console/audiences/lists/${seg(l.id)}/delete">
      ${csrfField(c.csrfToken)}
      <button type="submit" class="danger" aria-label="Delete the list ${l.attributes.name}">Delete</button>
    </form>`;
}

/** Registers the CSV downloads: a list's subscribers, and a finished export job (the link its mail carries). */
function registerListExport(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/audiences/lists/:id/export.csv',
    permission: 'read',
    title: 'Export',
    protectedContent: 'list.export',
    render: async (c) => {
      const out = await exportListCsv(ctx, c.account.customer_id, c.params.id!);
      await audited(c, 'list.export', `list:${c.params.id!}`);
      const name = `${out.name.replace(/[^\p{L}\p{N}_-]+/gu, '-')}.csv`;
      return { download: { filename: name, contentType: 'text/csv; charset=utf-8', body: out.stream } };
    },
  });
  consolePage(app, ctx, {
    path: `/console${exportPagePath(':id')}`,
    permission: 'read',
    title: 'Export',
    protectedContent: 'export.download',
    render: async (c) => {
      const stream = await exportCsvOf(ctx, c.account.customer_id, c.params.id!);
      await audited(c, 'export.download', `bulk_job:${c.params.id!}`);
      const filename = `export-${c.params.id!.replace(/[^0-9]/g, '')}.csv`;
      return { download: { filename, contentType: 'text/csv; charset=utf-8', body: stream } };
    },
  });
}

/** Registers the list actions: create, rename and delete. */
function registerListActions(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/audiences/lists',
    permission: 'edit_content',
    body: Form({ name: Text() }),
    back: () => '/console/audiences',
    handle: async (c) => {
      const list = await createList(ctx, c.account.customer_id, field(c, 'name'));
      await audited(c, 'list.create', `list:${list.id}`, { name: list.attributes.name });
      return { redirect: '/console/audiences', flash: `The list "${list.attributes.name}" was created.` };
    },
  });

  consoleAction(app, ctx, {
    path: '/console/audiences/lists/:id/rename',
    permission: 'edit_content',
    body: Form({ name: Text() }),
    back: () => '/console/audiences',
    handle: async (c) => {
      const list = await renameListOf(ctx, c.account.customer_id, c.params.id!, field(c, 'name'));
      await audited(c, 'list.rename', `list:${list.id}`, { name: list.attributes.name });
      return { redirect: '/console/audiences', flash: `The list is now named "${list.attributes.name}".` };
    },
  });

  consoleAction(app, ctx, {
    path: '/console/audiences/lists/:id/delete',
    permission: 'edit_content',
    body: NoFields,
    back: () => '/console/audiences',
    handle: async (c) => {
      await removeList(ctx, c.account.customer_id, c.params.id!);
      await audited(c, 'list.delete', `list:${c.params.id!}`);
      return { redirect: '/console/audiences', flash: 'The list was deleted.' };
    },
  });
}
