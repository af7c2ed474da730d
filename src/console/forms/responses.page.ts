/**
 * A form's responses: a newest-first table with search and a date filter, one response with its signature evidence
 * and uploaded files, and the CSV and PDF exports. All of it is protected content: it needs the protected-content
 * permission, and every view, download and export is written to the audit trail (by the browse service).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { isField } from '../../forms/components/components.ts';
import { fieldName, labelOf } from '../../forms/components/component-types.ts';
import { componentsOf } from '../../forms/definitions/definition.ts';
import { submissionPdf, submissionsCsv } from '../../forms/submissions/exports.ts';
import {
  auditExport,
  browseSubmissions,
  readSubmission,
  submissionFile,
  type Reader,
} from '../../forms/submissions/browse.service.ts';
import { requireSubmission } from '../../forms/submissions/submissions.service.ts';
import { requireForm } from '../../forms/definitions/forms.service.ts';
import { attachmentHeaders } from '../../forms/submissions/file-headers.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { consolePage, guard, type ConsoleContext } from '../page.ts';
import { formsAssets, formTabs } from './builder.view.ts';

const reader = (c: ConsoleContext): Reader => ({
  accountId: c.account.customer_id,
  actor: c.actor,
  ip: c.ip,
});

/** A stored value as text for the table and the detail page. */
function valueText(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  if (Array.isArray(value)) return value.map(String).join('; ');
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string' && value.startsWith('data:image/')) return '[drawn signature]';
  return String(value as string | number);
}

const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
const isImage = (type: string) => /^image\/(png|jpeg|gif|webp)$/.test(type);

async function listPage(c: ConsoleContext) {
  const id = c.params.id!;
  const q = {
    search: c.query.search,
    from: c.query.from || undefined,
    to: c.query.to || undefined,
    before: c.query.before,
  };
  const { form, items, next } = await browseSubmissions(c.ctx, reader(c), id, q);
  const fields = componentsOf(form.form_json).filter(isField);
  const shown = fields.slice(0, 3);
  const keep = new URLSearchParams(
    Object.entries({ search: q.search ?? '', from: q.from ?? '', to: q.to ?? '' }).filter(([, v]) => v),
  );
  return {
    title: `Responses: ${form.title}`,
    body: html`${formsAssets()} ${formTabs(id, 'responses', true)}
      <form method="get" class="filters" role="search" aria-label="Filter responses">
        <div class="field">
          <label for="search">Search the answers</label><input type="text" id="search" name="search" value="${q.search ?? ''}" />
        </div>
        <div class="field"><label for="from">From</label><input id="from" name="from" type="date" value="${q.from ?? ''}" /></div>
        <div class="field"><label for="to">To</label><input id="to" name="to" type="date" value="${q.to ?? ''}" /></div>
        <button type="submit">Filter</button>
      </form>
      <div class="card actions">
        <a
          class="button secondary"
          href="/console/forms/${id}/responses.csv"
          download="form-${id}-responses.csv"
          data-progress="${form.submission_count}"
          aria-controls="export-status"
          >Export all ${form.submission_count} as CSV</a
        >
        <div id="export-status" role="status" hidden><progress max="1" value="0"></progress> <span></span></div>
      </div>
      ${
        items.length === 0
          ? html`<p class="muted">No responses${q.search || q.from || q.to ? ' match these filters' : ' yet'}.</p>`
          : html`<div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Received</th>
                    ${shown.map((f) => html`<th scope="col">${labelOf(f)}</th>`)}
                    <th scope="col">Files</th>
                    <th scope="col"><span class="visually-hidden">Open</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${items.map(
                    ({ row, data }) =>
                      html`<tr>
                        <td>${when(row.created_at)}</td>
                        ${shown.map((f) => html`<td>${valueText(data.form_data[fieldName(f)])}</td>`)}
                        <td>${data.files.length}</td>
                        <td>
                          <a href="/console/forms/${id}/responses/${row.id}"
                            >Open<span class="visually-hidden"> the response of ${when(row.created_at)}</span></a
                          >
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      ${next ? html`<p><a href="/console/forms/${id}/responses?${keep.toString()}${keep.size ? '&' : ''}before=${next}">Older responses</a></p>` : ''}`,
  };
}

async function detailPage(c: ConsoleContext) {
  const { form, row, data, signature } = await readSubmission(c.ctx, reader(c), c.params.id!, c.params.sid!);
  const base = `/console/forms/${form.id}/responses/${row.id}`;
  const fields = componentsOf(form.form_json).filter(isField);
  const files: SafeHtml[] = data.files.map(
    (f) =>
      html`<li>
        <a href="${base}/files/${encodeURIComponent(f.field_name)}">${f.name}</a>
        <span class="muted">(${f.content_type}, ${f.size} bytes)</span>
        ${
          isImage(f.content_type)
            ? html`<div class="file-preview">
                <img src="${base}/files/${encodeURIComponent(f.field_name)}?inline=1" alt="Preview of ${f.name}" />
              </div>`
            : ''
        }
      </li>`,
  );
  return {
    title: `Response of ${when(row.created_at)}`,
    body: html`${formsAssets()} ${formTabs(form.id, 'responses', true)}
      <p><a href="/console/forms/${form.id}/responses">Back to all responses</a></p>
      <div class="card">
        <dl>
          ${fields.map(
            (f) =>
              html`<dt>${labelOf(f)}</dt>
                <dd>${valueText(data.form_data[fieldName(f)])}</dd>`,
          )}
        </dl>
        <p class="muted">Response ${row.id} · form version ${row.form_version}</p>
        <div class="actions"><a class="button secondary" href="${base}/pdf">Download PDF</a></div>
      </div>
      ${
        files.length
          ? html`<div class="card">
              <h2>Uploaded files</h2>
              <ul>
                ${files}
              </ul>
            </div>`
          : ''
      }
      ${
        signature
          ? html`<div class="card evidence">
              <h2>Signature evidence</h2>
              ${signature.label ? html`<p>Confirmed: “${signature.label}”</p>` : ''}
              ${
                /^data:image\/(png|jpeg);base64,/.test(signature.mark)
                  ? html`<img src="${signature.mark}" alt="The drawn signature" />`
                  : html`<p>Typed name: <strong>${signature.mark}</strong></p>`
              }
              <p class="muted">Signed ${when(signature.signed_at)} from ${signature.ip}, form version ${signature.form_version}</p>
            </div>`
          : ''
      }`,
  };
}

/** Registers the responses pages and their downloads. */
export function responsesPages(app: FastifyInstance, ctx: AppContext): void {
  const permission = 'read_protected' as const;
  consolePage(app, ctx, {
    path: '/console/forms/:id/responses',
    permission,
    protectedContent: 'form.submissions_read',
    title: 'Responses',
    render: listPage,
  });
  consolePage(app, ctx, {
    path: '/console/forms/:id/responses.csv',
    permission,
    protectedContent: 'form.export',
    title: 'Export',
    render: async (c) => {
      const form = await requireForm(c.ctx, c.account.customer_id, c.params.id!);
      await auditExport(c.ctx, reader(c), form, 'csv');
      return {
        download: {
          filename: `form-${form.id}-responses.csv`,
          contentType: 'text/csv; charset=utf-8',
          body: submissionsCsv(c.ctx, form, { bom: true }),
        },
      };
    },
  });
  consolePage(app, ctx, {
    path: '/console/forms/:id/responses/:sid',
    permission,
    protectedContent: 'form.submission_read',
    title: 'Response',
    render: detailPage,
  });
  consolePage(app, ctx, {
    path: '/console/forms/:id/responses/:sid/pdf',
    permission,
    protectedContent: 'form.export',
    title: 'PDF',
    render: async (c) => {
      const { form, row } = await requireSubmission(
        c.ctx,
        c.account.customer_id,
        c.params.id!,
        c.params.sid!,
      );
      await auditExport(c.ctx, reader(c), form, 'pdf');
      return {
        download: {
          filename: `submission-${row.id}.pdf`,
          contentType: 'application/pdf',
          body: await submissionPdf(c.ctx, form, row),
        },
      };
    },
  });
  app.get<{ Params: { id: string; sid: string; field: string }; Querystring: { inline?: string } }>(
    '/console/forms/:id/responses/:sid/files/:field',
    { schema: { hide: true }, config: { protectedContent: 'form.file_download' } },
    async (req, reply) => {
      const c = await guard(ctx, req, reply, permission);
      if (!c) return reply;
      const file = await submissionFile(ctx, reader(c), req.params.id, req.params.sid, req.params.field);
      const inline = req.query.inline === '1' && isImage(file.contentType);
      return reply.headers(attachmentHeaders(file.name, file.contentType, inline)).send(file.bytes);
    },
  );
}
