/**
 * Imports at `/console/audiences/imports`: upload a CSV file into a list, map its columns, run a dry run that reports
 * what would change, then import. The pass runs as a background job; the page shows its progress (polling a small JSON
 * endpoint, so it survives a reload) and offers the rejected rows as a CSV report. Looking needs `read`; uploading and
 * starting need `edit_content`. Uploads and starts are audited.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { listsOf } from '../../marketing/lists/lists.service.ts';
import {
  CONSENT_BASES,
  errorReport,
  importOf,
  importsOf,
  previewImport,
  rejectedRows,
  startImport,
  uploadImport,
  type ConsentBasis,
  type ImportField,
  type ImportMapping,
} from '../../marketing/imports/imports.service.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import {
  checkFields,
  consoleAction,
  consolePage,
  guard,
  type ConsoleContext,
  type FormFields,
} from '../page.ts';
import { audited, field, seg } from './audit.ts';
import { importBody, progressFields, STATE_TEXT } from './imports.view.ts';
import { Csrf, Field, Form, Text } from '../action.schemas.ts';

/** The largest CSV file the console accepts (about two million rows of a few columns). */
const MAX_UPLOAD_BYTES = 200 * 1024 * 1024;

/** The text fields of the upload form (the file part is read, and checked, as it streams). */
const UploadForm = Form({ _csrf: Csrf(), list: Field(64) });

/** Registers the import pages and actions. */
export function importsPages(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/audiences/imports',
    permission: 'read',
    title: 'Import subscribers',
    render: async (c) => {
      const [lists, imports] = await Promise.all([
        listsOf(ctx, c.account.customer_id).then((r) => r.data),
        importsOf(ctx, c.account.customer_id),
      ]);
      return html`<p><a href="/console/audiences">← All lists</a></p>
        ${c.can('edit_content') ? uploadForm(c, lists) : ''} ${recentImports(imports)}`;
    },
  });
  uploadRoute(app, ctx);
  importPages(app, ctx);
  startAction(app, ctx);
}

function uploadForm(
  c: ConsoleContext,
  lists: { id: string | number; attributes: { name: string } }[],
): SafeHtml {
  return html`<div class="card">
    <h2>Upload a CSV file</h2>
    <p class="muted">The first line names the columns. One column holds the email address; you choose the others next.</p>
    <form method="post" action="/console/audiences/imports" enctype="multipart/form-data">
      ${csrfField(c.csrfToken)}
      <div class="field">
        <label for="list">Into list</label>
        <select id="list" name="list">
          ${lists.map((l) => html`<option value="${l.id}">${l.attributes.name}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="file">CSV file</label><input id="file" name="file" type="file" accept=".csv,text/csv" required />
      </div>
      <button type="submit" class="button">Upload</button>
    </form>
  </div>`;
}

function recentImports(imports: Awaited<ReturnType<typeof importsOf>>): SafeHtml {
  return html`<div class="card">
    <h2>Recent imports</h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">State</th>
            <th scope="col">Rows</th>
            <th scope="col">Rejected</th>
          </tr>
        </thead>
        <tbody>
          ${
            imports.length === 0
              ? html`<tr>
                  <td colspan="4">No imports yet.</td>
                </tr>`
              : ''
          }
          ${imports.map(
            (i) =>
              html`<tr>
                <td><a href="/console/audiences/imports/${seg(i.id)}">${i.file_name}</a></td>
                <td>${STATE_TEXT[i.state] ?? i.state}</td>
                <td>${i.rows_done.toLocaleString('en')}</td>
                <td>${i.failed.toLocaleString('en')}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </div>`;
}

/** Adds a text field of a multipart form; a repeated name becomes a list, and an empty value counts as not sent. */
function addField(fields: FormFields, name: string, value: string): void {
  if (value === '') return;
  const prior = fields[name];
  fields[name] = prior === undefined ? value : [prior, value].flat();
}

/**
 * The upload: multipart, streamed into the database as it arrives. The text fields come before the file part; once
 * the guard has passed, they are checked against `UploadForm` before anything is written.
 */
function uploadRoute(app: FastifyInstance, ctx: AppContext): void {
  app.post('/console/audiences/imports', { schema: { hide: true } }, async (req, reply) => {
    if (!req.isMultipart())
      throw new AppError('marketing.import_invalid', 'send the file as multipart/form-data');
    const fields: FormFields = {};
    for await (const part of req.parts({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } })) {
      if (part.type === 'field') {
        addField(fields, part.fieldname, String(part.value));
        continue;
      }
      req.body = fields;
      const c = await guard(ctx, req, reply, 'edit_content');
      if (!c) return reply;
      const form = checkFields(req, UploadForm, fields);
      const up = await uploadImport(ctx, c.account.customer_id, {
        listId: form.list,
        fileName: part.filename,
        source: part.file,
        createdBy: c.user.id,
      });
      if (part.file.truncated)
        throw new AppError(
          'marketing.import_invalid',
          `the file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB; import it with the sealpost command`,
        );
      await audited(c, 'import.upload', `import:${up.id}`, {
        list: up.list_id,
        file: up.file_name,
        bytes: up.total_bytes,
      });
      return reply.code(303).redirect(`/console/audiences/imports/${seg(up.id)}`, 303);
    }
    throw new AppError('marketing.import_invalid', 'choose a CSV file to upload');
  });
}

/** An import's page, its progress for the page's polling, and its rejected rows as CSV. */
function importPages(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/audiences/imports/:id',
    permission: 'read',
    title: 'Import',
    render: async (c) => {
      const id = c.params.id!;
      const i = await importOf(ctx, c.account.customer_id, id);
      const [preview, rejected] = await Promise.all([
        previewImport(ctx, c.account.customer_id, id),
        rejectedRows(ctx, c.account.customer_id, id),
      ]);
      return { title: `Import: ${i.file_name}`, body: importBody(c, i, preview, rejected) };
    },
  });

  app.get<{ Params: { id: string } }>(
    '/console/audiences/imports/:id/progress.json',
    { schema: { hide: true } },
    async (req, reply) => {
      const c = await guard(ctx, req, reply, 'read');
      if (!c) return reply;
      const i = await importOf(ctx, c.account.customer_id, req.params.id);
      return reply
        .header('cache-control', 'no-store')
        .send({ ...progressFields(i), finished: !['queued', 'running'].includes(i.state) });
    },
  );

  consolePage(app, ctx, {
    path: '/console/audiences/imports/:id/errors.csv',
    permission: 'read',
    title: 'Rejected rows',
    render: async (c) => ({
      download: {
        filename: `import-${c.params.id!}-rejected.csv`,
        contentType: 'text/csv; charset=utf-8',
        body: await errorReport(ctx, c.account.customer_id, c.params.id!),
      },
    }),
  });
}

/** Starts a dry run or the import itself with the columns as mapped. */
function startAction(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/audiences/imports/:id/start',
    permission: 'edit_content',
    body: Form({ mode: Text(), consent: Text(64) }, { patternProperties: { '^map_[0-9]+$': Type.String() } }),
    handle: async (c) => {
      const mapping: ImportMapping = {};
      for (const [k, v] of Object.entries(c.form)) {
        const m = /^map_(\d+)$/.exec(k);
        const value = Array.isArray(v) ? v[0] : v;
        if (m && value) mapping[m[1]!] = value as ImportField;
      }
      const dry = field(c, 'mode') !== 'import';
      const consent = field(c, 'consent');
      if (!(consent in CONSENT_BASES))
        throw new AppError('marketing.import_invalid', 'choose why you may email the people in this file');
      if (!dry) await requireChecked(ctx, c, mapping);
      const i = await startImport(
        ctx,
        c.account.customer_id,
        c.params.id!,
        mapping,
        dry,
        true,
        consent as ConsentBasis,
      );
      await audited(c, dry ? 'import.dry_run' : 'import.start', `import:${i.id}`, {
        list: i.list_id,
        consent_basis: consent,
      });
      return {
        redirect: `/console/audiences/imports/${seg(i.id)}`,
        flash: dry ? 'The check has started.' : 'The import has started.',
      };
    },
  });
}

/** The import runs only after a check of the file with the same columns, whose result the person has seen. */
async function requireChecked(ctx: AppContext, c: ConsoleContext, mapping: ImportMapping): Promise<void> {
  const i = await importOf(ctx, c.account.customer_id, c.params.id!);
  const same =
    JSON.stringify(Object.entries(i.mapping).sort()) === JSON.stringify(Object.entries(mapping).sort());
  if (i.state !== 'checked' || !same)
    throw new AppError('marketing.import_state', 'check the file with these columns first, then import it');
}
