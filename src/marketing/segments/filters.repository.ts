/**
 * The SQL of filters (see filters.ts): one condition over the subscriber alias `s`, evaluated by the database (both
 * dialects), never in this process; and how many of an account's subscribers meet it.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Queryable } from '../../db/types.ts';
import { parseRef } from '../ids.ts';
import type { Condition, Filters } from './filters.ts';

const DAY_MS = 86_400_000;

/** One SQL condition over subscriber alias `s` for parsed filters; `now` anchors `within_days`. */
export function filterSql(filters: Filters, customerId: number, now: number): RawBuilder<SqlBool> {
  if (filters.length === 0) return sql<SqlBool>`1 = 1`;
  const groups = filters.map(
    (g) =>
      sql`(${sql.join(
        g.map((c) => conditionSql(c, customerId, now)),
        sql` and `,
      )})`,
  );
  return sql<SqlBool>`(${sql.join(groups, sql` or `)})`;
}

const likeEscape = (t: string) => t.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** A text test of `value` (an SQL expression) against terms: positive form (negations wrap it). */
function textTest(value: RawBuilder<unknown>, op: string, terms: string[]): RawBuilder<unknown> {
  const lowered = sql`lower(coalesce(${value}, ''))`;
  const any = (pattern: (t: string) => string) =>
    sql`(${sql.join(
      terms.map((t) => sql`${lowered} like ${pattern(likeEscape(t))} escape '\\'`),
      sql` or `,
    )})`;
  switch (op) {
    case 'is':
    case 'is_not':
      return sql`${lowered} in (${sql.join(terms.map((t) => t.toLowerCase()))})`;
    case 'contains':
    case 'not_contains':
      return any((t) => `%${t}%`);
    case 'starts_with':
      return any((t) => `${t}%`);
    case 'ends_with':
      return any((t) => `%${t}`);
    case 'before':
      return sql`${value} < ${terms[0]}`;
    case 'after':
      return sql`${value} > ${terms[0]}`;
    default:
      return sql`coalesce(${value}, '') <> ''`;
  }
}

const NEGATED = new Set(['is_not', 'not_contains', 'not_exists']);

function conditionSql(c: Condition, customerId: number, now: number): RawBuilder<unknown> {
  switch (c.kind) {
    case 'text': {
      const col = c.field === 'email' ? sql.ref('s.email_key') : sql.ref(`s.${c.field}`);
      const test = textTest(col, c.op, c.terms);
      return NEGATED.has(c.op) ? sql`not ${test}` : test;
    }
    case 'flag':
      return sql`s.unsubscribed = ${c.terms[0] === 'true' ? 1 : 0}`;
    case 'date': {
      const col = sql.ref(`s.${c.field}`);
      if (c.op === 'within_days') return sql`${col} >= ${now - Number(c.terms[0]) * DAY_MS}`;
      return sql`${col} ${c.op === 'before' ? sql`<` : sql`>`} ${Date.parse(c.terms[0]!)}`;
    }
    case 'custom': {
      const test = textTest(sql.ref('v.value'), c.op === 'not_exists' ? 'exists' : c.op, c.terms);
      const found = sql`exists (select 1 from subscriber_custom_field_values v
        join subscriber_custom_field_types t on t.id = v.field_type_id
        where v.subscriber_id = s.id and t.customer_id = ${customerId} and t.name_key = ${c.custom} and ${test})`;
      return NEGATED.has(c.op) ? sql`not ${found}` : found;
    }
    case 'list': {
      const lists = keysOf('subscription_lists', customerId, c.terms);
      const member = sql`exists (select 1 from subscription_list_members m
        where m.subscriber_id = s.id and m.list_id in ${lists} and m.unsubscribed = 0)`;
      return c.op === 'is_not' ? sql`not ${member}` : member;
    }
    case 'engagement':
      return engagementSql(c, customerId, now);
  }
}

/** The account's rows named by ids as written in a filter (UUIDs, or the old integer form), as an SQL subquery. */
function keysOf(table: 'subscription_lists' | 'campaign_mailing_sends', customerId: number, terms: string[]) {
  const refs = terms.map((t) => parseRef(t)!);
  const uuids = refs.flatMap((r) => ('uuid' in r ? [r.uuid] : []));
  const ints = refs.flatMap((r) => ('id' in r ? [r.id] : []));
  const named = [
    ...(uuids.length > 0 ? [sql`uuid in (${sql.join(uuids)})`] : []),
    ...(ints.length > 0 ? [sql`id in (${sql.join(ints)})`] : []),
  ];
  return sql`(select id from ${sql.table(table)} where customer_id = ${customerId} and (${sql.join(named, sql` or `)}))`;
}

function engagementSql(c: Condition, customerId: number, now: number): RawBuilder<unknown> {
  const happened = c.field === 'opened' ? sql`d.first_opened_at is not null` : sql`d.click_count > 0`;
  if (c.op === 'within_days') {
    const since = now - Number(c.terms[0]) * DAY_MS;
    return c.field === 'opened'
      ? sql`exists (select 1 from marketing_deliveries d where d.subscriber_id = s.id and d.first_opened_at >= ${since})`
      : sql`exists (select 1 from marketing_deliveries d join marketing_link_clicks k on k.delivery_id = d.id
          where d.subscriber_id = s.id and k.first_clicked_at >= ${since})`;
  }
  const sends =
    c.op === 'is' || c.op === 'is_not'
      ? sql` and d.send_id in ${keysOf('campaign_mailing_sends', customerId, c.terms)}`
      : sql``;
  const found = sql`exists (select 1 from marketing_deliveries d where d.subscriber_id = s.id${sends} and ${happened})`;
  return NEGATED.has(c.op) ? sql`not ${found}` : found;
}

/** Conditions that must all hold. */
export function allOf(...conditions: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
}

/** Subscriber `s` is on list `listId` (subscribed or not). */
export function onList(listId: number): RawBuilder<SqlBool> {
  return sql<SqlBool>`exists (select 1 from subscription_list_members m where m.subscriber_id = s.id and m.list_id = ${listId})`;
}

/** How many of the account's subscribers meet a condition over alias `s`. */
export async function countMatching(
  db: Queryable,
  customerId: number,
  filter: RawBuilder<SqlBool>,
): Promise<number> {
  const r = await db
    .selectFrom('subscribers as s')
    .where('s.customer_id', '=', customerId)
    .where(filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
