/** SQL for messages, their recipients, tracked links, events and idempotency keys. */
import { CompiledQuery, type Insertable, type Selectable } from 'kysely';
import type { MessageLinksTable, MessageRecipientsTable, MessagesTable, Queryable } from '../db/types.ts';
import { precompileRows } from '../db/precompiled.ts';

export type MessageRow = Selectable<MessagesTable>;
export type RecipientRow = Selectable<MessageRecipientsTable>;
export type LinkRow = Selectable<MessageLinksTable>;

/** A new message row: the counters and the purge time start at their defaults. */
export type NewMessage = Omit<
  Insertable<MessagesTable>,
  'total_opens' | 'total_clicks' | 'unsubscribed' | 'content_purged_at'
>;

/** A new recipient row: the columns a delivery attempt sets start empty. */
export type NewRecipient = Pick<
  Insertable<MessageRecipientsTable>,
  | 'message_id'
  | 'customer_id'
  | 'address'
  | 'name'
  | 'kind'
  | 'status'
  | 'delivery_status'
  | 'last_response'
  | 'updated_at'
>;

/**
 * The columns accepted mail fills, with their PostgreSQL types: the inserts below and the single statement on
 * PostgreSQL write the same columns.
 */
const MESSAGE_COLUMNS = {
  id: 'text',
  customer_id: 'integer',
  domain_id: 'text',
  header_message_id: 'text',
  from_addr: 'text',
  source: 'text',
  lane: 'text',
  allow_non_tls: 'integer',
  force_secure: 'integer',
  open_tracking: 'integer',
  link_tracking: 'integer',
  custom_headers: 'text',
  content: 'text',
  recipient_count: 'integer',
  pending_count: 'integer',
  created_at: 'bigint',
  finished_at: 'bigint',
  subject_hash: 'text',
} satisfies Record<keyof Required<NewMessage>, string>;
const RECIPIENT_COLUMNS = {
  message_id: 'text',
  customer_id: 'integer',
  address: 'text',
  name: 'text',
  kind: 'text',
  status: 'text',
  delivery_status: 'text',
  last_response: 'text',
  updated_at: 'bigint',
} satisfies Record<keyof Required<NewRecipient>, string>;
const LINK_COLUMNS = { message_id: 'text', position: 'integer', target_url: 'text' } satisfies Record<
  keyof Omit<Insertable<MessageLinksTable>, 'id' | 'click_count'>,
  string
>;

/** The row's values of `columns`, in their order. */
function columnsOf<T>(row: T, columns: Record<keyof T & string, string>): T {
  return Object.fromEntries(Object.keys(columns).map((c) => [c, row[c as keyof T]])) as T;
}

// Every accepted message runs these, so they are compiled once per row count (see db/precompiled.ts); a batch of
// accepted messages writes each table with one statement.
const insertMessagesQuery = precompileRows((db, rows: Required<NewMessage>[]) =>
  db.insertInto('messages').values(rows.map((m) => columnsOf(m, MESSAGE_COLUMNS))),
);
const insertRecipientsQuery = precompileRows((db, rows: Required<NewRecipient>[]) =>
  db
    .insertInto('message_recipients')
    .values(rows.map((r) => columnsOf(r, RECIPIENT_COLUMNS)))
    .returning(['id', 'message_id', 'address']),
);

/** Inserts message rows. */
export async function insertMessages(db: Queryable, rows: readonly NewMessage[]): Promise<void> {
  await insertMessagesQuery(db, rows as Required<NewMessage>[]);
}

/**
 * Inserts recipient rows and returns their ids in the order of `rows`. The rows a multi-row insert returns are matched
 * by message and address (unique among a message's recipients), not by position, which neither dialect promises.
 */
export async function insertRecipients(db: Queryable, rows: readonly NewRecipient[]): Promise<number[]> {
  const inserted = await insertRecipientsQuery(db, rows as Required<NewRecipient>[]);
  const ids = new Map(inserted.map((r) => [`${r.message_id}\u0000${r.address}`, r.id]));
  return rows.map((r) => ids.get(`${r.message_id}\u0000${r.address}`)!);
}

const quoted = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');
const typedList = (columns: Record<string, string>) =>
  Object.entries(columns)
    .map(([c, type]) => `"${c}" ${type}`)
    .join(', ');

/** `insert into table (columns) select … from` the rows of a JSON array parameter. */
function insertFromJson(table: string, columns: Record<string, string>, param: string): string {
  const names = quoted(Object.keys(columns));
  const rows = `json_to_recordset(${param}::json) as x(${typedList(columns)})`;
  return `insert into ${table} (${names}) select ${names} from ${rows}`;
}

/**
 * The message rows without their `content`, which travels beside the JSON array as one parameter per message: it is
 * most of a batch's bytes, and PostgreSQL takes a parameter as it comes where it reads a JSON string character by
 * character. `rows from` pairs the n-th JSON row with the n-th content.
 */
const { content: _content, ...MESSAGE_JSON_COLUMNS } = MESSAGE_COLUMNS;
function insertMessagesFromJson(param: string, contents: readonly string[]): string {
  const names = quoted([...Object.keys(MESSAGE_JSON_COLUMNS), 'content']);
  return `insert into messages (${names}) select ${names}
from rows from (json_to_recordset(${param}::json) as (${typedList(MESSAGE_JSON_COLUMNS)}),
unnest(array[${contents.join(', ')}]::text[])) as x(${names})`;
}

/** Most messages one statement carries: with their contents as parameters, under PostgreSQL's 65,535 parameters. */
export const ACCEPTED_STATEMENT_MAX_MESSAGES = 60_000;

/** The statement's text for each number of messages up to a group commit's usual batch, built once. */
const acceptedSqlByCount = new Map<number, string>();
const CACHED_COUNTS = 256;

/** One statement per number of messages: the rows travel as JSON arrays, one parameter per table, contents apart. */
function acceptedSql(messages: number): string {
  if (messages > CACHED_COUNTS) return buildAcceptedSql(messages);
  let text = acceptedSqlByCount.get(messages);
  if (text === undefined) {
    text = buildAcceptedSql(messages);
    acceptedSqlByCount.set(messages, text);
  }
  return text;
}

function buildAcceptedSql(messages: number): string {
  const contents = Array.from({ length: messages }, (_, i) => `$${i + 5}`);
  return `with m as (${insertMessagesFromJson('$1', contents)}),
r as (${insertFromJson('message_recipients', RECIPIENT_COLUMNS, '$2')} returning id, status, updated_at),
l as (${insertFromJson('message_links', LINK_COLUMNS, '$3')})
insert into jobs (queue, payload, state, attempts, run_at, created_at, updated_at)
select $4, '{"recipientId":' || id || '}', 'queued', 0, updated_at, updated_at, updated_at
from r where status = 'queued' order by id`;
}

/** The rows of accepted messages, and the queue of their deliveries. */
export interface AcceptedRows {
  messages: readonly NewMessage[];
  recipients: readonly NewRecipient[];
  links: readonly Insertable<MessageLinksTable>[];
  queue: string;
}

/**
 * PostgreSQL only: inserts accepted messages, their recipients and links, and a queued work row (`{"recipientId":N}`,
 * the same text as enqueueJobs writes) for each recipient inserted as `queued`, with one statement. Its
 * data-modifying WITH clauses make it atomic on its own, so it needs no transaction: one round trip writes a whole
 * group-commit batch.
 */
export async function insertAcceptedStatement(db: Queryable, rows: AcceptedRows): Promise<void> {
  await db.executeQuery(
    CompiledQuery.raw(acceptedSql(rows.messages.length), [
      JSON.stringify(rows.messages.map(({ content: _, ...row }) => row)),
      JSON.stringify(rows.recipients),
      JSON.stringify(rows.links),
      rows.queue,
      ...rows.messages.map((m) => m.content),
    ]),
  );
}

/** Inserts the tracked links of a message. */
export async function insertLinks(db: Queryable, rows: Insertable<MessageLinksTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('message_links').values(rows).execute();
}

/** A message of one account, or undefined (another account's message is not found either). */
export async function findMessage(
  db: Queryable,
  customerId: number,
  id: string,
): Promise<MessageRow | undefined> {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

/** The recipients of a message, in the order they were given. */
export async function listRecipients(db: Queryable, messageId: string): Promise<RecipientRow[]> {
  return db
    .selectFrom('message_recipients')
    .selectAll()
    .where('message_id', '=', messageId)
    .orderBy('id')
    .execute();
}

/** The tracked links of a message, by position. */
export async function listLinks(db: Queryable, messageId: string): Promise<LinkRow[]> {
  return db
    .selectFrom('message_links')
    .selectAll()
    .where('message_id', '=', messageId)
    .orderBy('position')
    .execute();
}

/** A stored idempotency record. */
export async function findIdempotencyKey(db: Queryable, customerId: number, key: string) {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Records the response given for an idempotency key (replacing an expired record). */
export async function saveIdempotencyKey(
  db: Queryable,
  customerId: number,
  key: string,
  requestHash: string,
  response: string,
  now: number,
  expiredBefore: number,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('customer_id', '=', customerId)
    .where('key', '=', key)
    .where('created_at', '<', expiredBefore)
    .execute();
  await db
    .insertInto('idempotency_keys')
    .values({ customer_id: customerId, key, request_hash: requestHash, response, created_at: now })
    .execute();
}

/** Deletes idempotency records older than `before`. */
export async function pruneIdempotencyKeys(db: Queryable, before: number): Promise<number> {
  const res = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}
