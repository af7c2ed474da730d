/** Tables of subscriber imports: the import (its state and progress), the uploaded file in chunks, and rejected rows. */
import type { Generated } from 'kysely';

export interface SubscriberImportsTable {
  id: Generated<number>;
  customer_id: number;
  /** The list the rows join, as given (marketing ids are opaque). */
  list_id: string;
  /** uploaded | queued | running | checked (a dry run finished) | done | failed */
  state: string;
  /** 1 while the queued or running pass is a dry run. */
  dry_run: number;
  file_name: string;
  /** The header line's columns (JSON array). */
  columns: string;
  /** Column index → field (JSON object: email, first_name, last_name, custom, or absent to ignore). */
  mapping: string;
  total_bytes: number;
  read_bytes: Generated<number>;
  /** Data rows handled and committed (a restarted pass skips these). */
  rows_done: Generated<number>;
  added: Generated<number>;
  updated: Generated<number>;
  failed: Generated<number>;
  error: Generated<string | null>;
  created_by: string;
  created_at: number;
  updated_at: number;
  finished_at: Generated<number | null>;
  /** Why the account may email these people, as the importer chose (see CONSENT_BASES); null when not given. */
  consent_basis: Generated<string | null>;
}

export interface SubscriberImportChunksTable {
  import_id: number;
  seq: number;
  data: string;
}

export interface SubscriberImportErrorsTable {
  import_id: number;
  /** The file's line number (1 is the header). */
  line: number;
  email: string;
  message: string;
}
