/** Text search in SQL that behaves the same on SQLite and PostgreSQL: a substring, letter case ignored, wildcards literal. */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

/** The `like` pattern of "contains `text`", lower-cased, with `%`, `_` and `\` taken literally. */
export const containsPattern = (text: string): string =>
  `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** `column` contains `text`, letter case ignored. */
export function containsText(
  column: Expression<unknown> | RawBuilder<unknown>,
  text: string,
): RawBuilder<SqlBool> {
  return sql<SqlBool>`lower(${column}) like ${containsPattern(text)} escape '\\'`;
}
