/**
 * Exports of submissions: CSV of all submissions of a form (streamed: rows are read in keyset-paged batches, so memory
 * stays flat however many there are) or of one, headed by `Created At` and the fields' labels as the reference layout
 * has it, with formula-like cells neutralised and a byte order mark only when asked for; and a PDF of one submission
 * with labels, values and the signature.
 */
import { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { componentsOf } from '../definitions/definition.ts';
import { isDecodableImage } from '../components/images.ts';
import { isField } from '../components/components.ts';
import { fieldName, labelOf, type Component } from '../components/component-types.ts';
import type { FormRow } from '../definitions/forms.service.ts';
import { openSubmission } from './submissions.service.ts';
import type { StoredFile } from './submission-check.ts';
import { findSignature, submissionsAfter, type SubmissionRow } from './submissions.repository.ts';

const BATCH = 500;

/**
 * A cell's text that spreadsheets will not run as a formula: a leading = + - @ (or tab, carriage return), or their
 * full-width forms ＝ ＋ － ＠ that some spreadsheets also read as formula starters, is prefixed by '.
 */
export function formulaSafe(value: string): string {
  return /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(value) ? `'${value}` : value;
}

/** One CSV cell: quoted, and formula-safe. */
export function csvCell(value: string): string {
  return `"${formulaSafe(value).replace(/"/g, '""')}"`;
}

/** A stored value as cell text. */
function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(String).join('; ');
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string' && value.startsWith('data:image/')) return '[signature image]';
  return String(value);
}

function fields(form: FormRow): Component[] {
  return componentsOf(form.form_json).filter(isField);
}

/** How a submissions CSV is written. */
export interface CsvOptions {
  /** Start with a UTF-8 byte order mark (for spreadsheets that guess the encoding otherwise). */
  bom?: boolean;
}

const BOM = '\ufeff';

function headerLine(components: Component[], opts: CsvOptions): string {
  return (opts.bom ? BOM : '') + ['Created At', ...components.map(labelOf)].map(csvCell).join(',') + '\r\n';
}

function rowLine(ctx: AppContext, components: Component[], row: SubmissionRow): string {
  const values = openSubmission(ctx, row).form_data;
  return (
    [new Date(row.created_at).toISOString(), ...components.map((c) => cellText(values[fieldName(c)]))]
      .map(csvCell)
      .join(',') + '\r\n'
  );
}

/** Streams the CSV of every submission of a form, oldest first. */
export function submissionsCsv(ctx: AppContext, form: FormRow, opts: CsvOptions = {}): Readable {
  const components = fields(form);
  async function* lines(): AsyncGenerator<string> {
    yield headerLine(components, opts);
    let after: { createdAt: number; id: string } | null = null;
    for (;;) {
      const rows = await submissionsAfter(ctx.database.reader, form.id, after, BATCH);
      if (rows.length === 0) return;
      yield rows.map((r) => rowLine(ctx, components, r)).join('');
      const last = rows[rows.length - 1]!;
      after = { createdAt: last.created_at, id: last.id };
      if (rows.length < BATCH) return;
    }
  }
  return Readable.from(lines());
}

/** The CSV of one submission. */
export function submissionCsv(
  ctx: AppContext,
  form: FormRow,
  row: SubmissionRow,
  opts: CsvOptions = {},
): string {
  const components = fields(form);
  return headerLine(components, opts) + rowLine(ctx, components, row);
}

/** The bytes of a PNG or JPEG data URL that decodes, else null. */
function imageOf(value: unknown): Buffer | null {
  const m = typeof value === 'string' ? /^data:image\/(?:png|jpeg);base64,(.+)$/.exec(value) : null;
  const bytes = m ? Buffer.from(m[1]!, 'base64') : null;
  return bytes && isDecodableImage(bytes) ? bytes : null;
}

/** The bytes of a field's uploaded file when it is a PNG or JPEG that decodes (the picture types a PDF can hold), else null. */
function uploadedPicture(files: StoredFile[], field: string): Buffer | null {
  const file = files.find((f) => f.field_name === field);
  if (!file || !/^image\/(png|jpeg)$/.test(file.content_type)) return null;
  const bytes = Buffer.from(file.content, 'base64');
  return isDecodableImage(bytes) ? bytes : null;
}

/**
 * A PDF of one submission: title, time, each field's label and value, uploaded pictures (PNG and JPEG) under their
 * file names, and the signature evidence.
 */
export async function submissionPdf(ctx: AppContext, form: FormRow, row: SubmissionRow): Promise<Buffer> {
  const data = openSubmission(ctx, row);
  const signature = await findSignature(ctx.database.reader, row.id);
  // Loaded on the first PDF: the library costs start-up time and memory that most processes never use.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: form.title } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  doc.fontSize(18).text(form.title);
  doc
    .fontSize(9)
    .fillColor('#555')
    .text(
      `Submission ${row.id} · ${new Date(row.created_at).toISOString()} · form version ${row.form_version}`,
    );
  doc.moveDown().fillColor('#000');
  for (const c of fields(form)) {
    const value = data.form_data[fieldName(c)];
    doc.fontSize(10).font('Helvetica-Bold').text(labelOf(c));
    const image = imageOf(value);
    if (image) doc.image(image, { fit: [250, 100] });
    else doc.font('Helvetica').text(cellText(value) || '—');
    const picture = uploadedPicture(data.files, fieldName(c));
    if (picture) doc.image(picture, { fit: [400, 300] });
    doc.moveDown(0.5);
  }
  if (signature) {
    const mark = ctx.sealer.openText(signature.image, `form_signature:${row.id}`);
    doc.moveDown().font('Helvetica-Bold').text('Signature');
    if (signature.label) doc.font('Helvetica').text(signature.label);
    const image = imageOf(mark);
    if (image) doc.image(image, { fit: [250, 100] });
    else doc.font('Helvetica-Oblique').fontSize(16).text(mark).fontSize(10);
    doc
      .font('Helvetica')
      .fontSize(9)
      .text(
        `Signed ${new Date(signature.signed_at).toISOString()} from ${signature.ip}, form version ${signature.form_version}`,
      );
  }
  doc.end();
  await done;
  return Buffer.concat(chunks);
}
