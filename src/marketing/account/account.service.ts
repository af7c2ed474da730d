/** The account as the marketing API shows it (`GET /current_customer`). */
import type { AppContext } from '../../context.ts';
import { getAccount } from '../../accounts/accounts.service.ts';

/** `GET /current_customer`: the account the key belongs to. */
export async function currentCustomerOf(ctx: AppContext, customerId: number) {
  const account = await getAccount(ctx.database.reader, customerId);
  return {
    data: {
      id: String(account.customer_id),
      type: 'customer' as const,
      attributes: { username: account.username, created_at: account.created_at },
    },
  };
}
