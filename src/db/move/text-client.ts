/** A PostgreSQL connection for moving data, which returns every value as PostgreSQL's text form. */
import type pg from 'pg';
import { pgDriver } from '../connect.ts';

/** Every value as text: counts and checksums compare text forms, never JavaScript numbers. */
const asText = { getTypeParser: () => (value: string) => value };

/** Opens one connection to `url` whose results are text. */
export async function textClient(url: string): Promise<pg.Client> {
  const client = new (pgDriver().Client)({ connectionString: url, types: asText });
  await client.connect();
  return client;
}
