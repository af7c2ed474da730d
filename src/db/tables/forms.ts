/** Tables of forms: definitions, submissions, signatures and daily counts. */
import type { Generated } from 'kysely';

export interface FormsTable {
  id: string;
  customer_id: number;
  title: string;
  description: string | null;
  /** The component schema as JSON text (component `text` HTML already sanitized). */
  form_json: string;
  form_html: string;
  form_css: string;
  vanity_url: string | null;
  version: number;
  active: number;
  old_form_id: string | null;
  /** Integer number of the form (PostgreSQL identity; SQLite next on insert). */
  number: Generated<number>;
  /** `number` of the form this one was copied from. */
  old_form_number: number | null;
  /** Comma-separated notification addresses. */
  recipient: string;
  signable: number;
  signature_confirmation_label: string | null;
  /** Maintained in the transaction that stores each submission. */
  submission_count: number;
  type: string | null;
  subscription_list_id: string | null;
  deleted: number;
  archived: number;
  created_at: number;
  updated_at: number;
}

export interface FormSubmissionsTable {
  id: string;
  form_id: string;
  customer_id: number;
  form_version: number;
  /** Sealed JSON: the checked values and uploaded files. */
  data: string;
  /** The client's Idempotency-Key (or the hosted page's token); unique per form. */
  idempotency_key: string | null;
  /** Sealed: the respondent's address from the form's email field ('' when none); null on older submissions. */
  submitter_email?: string | null;
  created_at: number;
}

export interface FormSignaturesTable {
  submission_id: string;
  form_id: string;
  form_version: number;
  field_name: string;
  label: string | null;
  ip: string;
  /** Sealed: a data: URL image or the typed name. */
  image: string;
  signed_at: number;
}

export interface FormDailyCountsTable {
  form_id: string;
  customer_id: number;
  /** Days since the Unix epoch (UTC). */
  day: number;
  count: number;
}
