/** The one check of a submission, shared by the JSON door and the hosted page: every field through its registry check, unknown keys dropped. */
import { ownValue } from '../../own.ts';
import type { ErrorDetail } from '../../errors/app-error.ts';
import { COMPONENTS } from '../components/components.ts';
import { fieldName, type Component, type Upload } from '../components/component-types.ts';

/** A stored upload. */
export interface StoredFile {
  field_name: string;
  name: string;
  content_type: string;
  size: number;
  /** base64 of the bytes. */
  content: string;
}

/** The result of checking a submission: values to store, files, and one problem per failing field. */
export interface CheckedSubmission {
  values: Record<string, unknown>;
  files: StoredFile[];
  errors: ErrorDetail[];
  /** The first Signature value, for the evidence record of signable forms. */
  signature?: { fieldName: string; value: string };
}

/** Checks `fields` (values by field name) and `uploads` (files by field name) against the form's components. */
export function checkSubmission(
  components: Component[],
  fields: Record<string, unknown>,
  uploads: Map<string, Upload>,
): CheckedSubmission {
  const out: CheckedSubmission = { values: {}, files: [], errors: [] };
  for (const c of components) {
    const check = ownValue(COMPONENTS, c.type)?.check;
    if (!check) continue;
    const name = fieldName(c);
    const result = check(c, Object.hasOwn(fields, name) ? fields[name] : undefined, uploads.get(name));
    if (result.error) {
      out.errors.push({ field: name, message: result.error });
      continue;
    }
    if (result.value === undefined) continue;
    out.values[name] = result.value;
    if (result.file)
      out.files.push({
        field_name: name,
        name: result.file.name,
        content_type: result.file.contentType,
        size: result.file.bytes.length,
        content: result.file.bytes.toString('base64'),
      });
    if (c.type === 'Signature' && !out.signature)
      out.signature = { fieldName: name, value: String(result.value) };
  }
  return out;
}

/** A JSON attachment `{name, content, field_name?}` as clients send it. */
export interface JsonAttachment {
  name: string;
  content: string;
  field_name?: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Matches JSON attachments to FileUpload fields: by `field_name` when given, else by the attachment name that the
 * field's value in form_data names. Attachments whose base64 is invalid are reported on their field.
 */
export function uploadsFromJson(
  components: Component[],
  formData: Record<string, unknown>,
  attachments: JsonAttachment[],
): { uploads: Map<string, Upload>; errors: ErrorDetail[] } {
  const uploads = new Map<string, Upload>();
  const errors: ErrorDetail[] = [];
  for (const c of components) {
    if (c.type !== 'FileUpload') continue;
    const name = fieldName(c);
    const a =
      attachments.find((x) => x.field_name === name) ??
      attachments.find((x) => x.field_name === undefined && x.name === formData[name]);
    if (!a) continue;
    const clean = a.content.replace(/\s+/g, '');
    if (!BASE64.test(clean)) {
      errors.push({ field: name, message: 'must be valid base64' });
      continue;
    }
    uploads.set(name, { name: a.name, bytes: Buffer.from(clean, 'base64') });
  }
  return { uploads, errors };
}
