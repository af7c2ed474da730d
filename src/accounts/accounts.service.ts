/** Accounts: creation with username rules, look-up by username or id. */
import { AppError } from '../errors/app-error.ts';
import type { Queryable } from '../db/types.ts';
import { RESERVED_USERNAMES } from './reserved.ts';
import {
  findAccountById,
  findAccountByUsername,
  insertAccount,
  listAccounts,
  searchAccountRows,
  type AccountRow,
} from './accounts.repository.ts';
import { isUniqueViolation } from '../db/errors.ts';

const USERNAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/;

/** An account as the API and the command line show it. */
export interface Account {
  customer_id: number;
  username: string;
  created_at: string;
}

function toAccount(row: AccountRow): Account {
  return {
    customer_id: row.id,
    username: row.username,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** Checks a username against the format and the reserved route words; returns it lower-cased. */
export function normalizeUsername(input: string): string {
  const username = input.trim().toLowerCase();
  if (!USERNAME.test(username))
    throw new AppError(
      'account.username_invalid',
      'username must be 1 to 63 characters of letters, digits, ".", "_" or "-", starting with a letter or digit',
    );
  if (RESERVED_USERNAMES.has(username))
    throw new AppError(
      'account.username_reserved',
      `username "${username}" is reserved: it is a word of the API's paths`,
    );
  return username;
}

/** Creates an account. */
export async function createAccount(db: Queryable, input: string, now = Date.now()): Promise<Account> {
  const username = normalizeUsername(input);
  try {
    return toAccount(await insertAccount(db, username, now));
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError('account.username_taken', `username "${username}" is already taken`);
    throw err;
  }
}

/** Finds an account by username or numeric id, or throws account.not_found. */
export async function getAccount(db: Queryable, ref: string | number): Promise<Account> {
  const row =
    typeof ref === 'number' || /^\d+$/.test(ref)
      ? await findAccountById(db, Number(ref))
      : await findAccountByUsername(db, ref.trim().toLowerCase());
  if (!row) throw new AppError('account.not_found', `no account "${ref}"`);
  return toAccount(row);
}

/** Accounts whose username contains `search` (letters, digits and `._-` only; anything else matches nothing), by username. */
export async function searchAccounts(db: Queryable, search: string, limit = 100): Promise<Account[]> {
  const term = search.trim().toLowerCase();
  if (term && !/^[a-z0-9_.-]+$/.test(term)) return [];
  return (await searchAccountRows(db, term, limit)).map(toAccount);
}

/** Lists every account. */
export async function allAccounts(db: Queryable): Promise<Account[]> {
  return (await listAccounts(db)).map(toAccount);
}
