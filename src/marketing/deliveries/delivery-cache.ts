/**
 * What the marketing lane would otherwise read again for every delivery of a send, kept per database:
 * - a send's email template and list, which never change once the send exists (its content is frozen when it starts);
 * - a From domain's signing keys, for a few seconds, so a domain removed or unverified stops signing soon after;
 * - the delivery row the gate has just read, handed to the load of the same attempt when it follows within HANDED_MS
 *   (with a send rate set, the lane may wait longer between the two, and the load then reads the row again).
 * Each is bounded; the least recently used entry goes first. Drip steps read their mailing every time (a mailing can change).
 */
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/connect.ts';
import { sendingDomain } from '../../accounts/domains.service.ts';
import {
  findTemplateSource,
  listOfDelivery,
  type DeliveryRow,
  type LaneDelivery,
} from './deliveries.repository.ts';
import { templateOfSource, type EmailTemplate } from './content.ts';

const MAX_SENDS = 32;
const MAX_DOMAINS = 256;
const MAX_HANDED = 4096;
const DOMAIN_TTL_MS = 5_000;
const HANDED_MS = 1_000;

type Domain = Awaited<ReturnType<typeof sendingDomain>>;

interface SendFacts {
  template: EmailTemplate | null;
  listId: number | null;
}

interface Caches {
  sends: LRUCache<number, Promise<SendFacts>>;
  domains: LRUCache<string, { at: number; domain: Promise<Domain> }>;
  handed: LRUCache<number, { at: number; row: LaneDelivery }>;
}

const byDatabase = new WeakMap<Database, Caches>();

/**
 * The connection the lane reads through: the writing one. With SQLite a second connection's page cache is emptied by
 * every commit of the writer, so during a send, whose outcomes commit many times a second, each read on the read
 * connection started cold (about half again as slow); the writer's cache stays warm. A read there waits for a transaction
 * running on the connection, and the transactions of delivery are a few statements each. With PostgreSQL both are
 * one pool.
 */
export const laneReader = (ctx: AppContext) => ctx.database.db;

function cachesOf(ctx: AppContext): Caches {
  let c = byDatabase.get(ctx.database);
  if (!c) {
    c = {
      sends: new LRUCache({ max: MAX_SENDS }),
      domains: new LRUCache({ max: MAX_DOMAINS }),
      handed: new LRUCache({ max: MAX_HANDED }),
    };
    byDatabase.set(ctx.database, c);
  }
  return c;
}

/** A send's template and list, read once per send; a failed read is not kept. */
function sendFacts(ctx: AppContext, sendId: number): Promise<SendFacts> {
  const { sends } = cachesOf(ctx);
  const hit = sends.get(sendId);
  if (hit) return hit;
  const reader = laneReader(ctx);
  const read = findTemplateSource(reader, { send_id: sendId, campaign_mailing_id: null }).then((source) =>
    source?.kind === 'send'
      ? { template: templateOfSource(source), listId: source.subscription_list_id }
      : { template: null, listId: null },
  );
  read.catch(() => sends.delete(sendId));
  sends.set(sendId, read);
  return read;
}

/** The template a delivery's email is rendered from: its send's (kept), or its mailing's (read each time). */
export async function deliveryTemplate(
  ctx: AppContext,
  d: Pick<DeliveryRow, 'send_id' | 'campaign_mailing_id'>,
): Promise<EmailTemplate | null> {
  if (d.send_id !== null) return (await sendFacts(ctx, d.send_id)).template;
  const source = await findTemplateSource(laneReader(ctx), d);
  return source ? templateOfSource(source) : null;
}

/** The list a delivery's email went to (a send's is kept), as listOfDelivery reads it. */
export async function deliveryList(
  ctx: AppContext,
  d: Pick<DeliveryRow, 'send_id' | 'drip_enrollment_id'>,
): Promise<number | null> {
  if (d.send_id !== null) return (await sendFacts(ctx, d.send_id)).listId;
  return listOfDelivery(laneReader(ctx), d);
}

/** A verified sending domain of the account with its keys, kept for DOMAIN_TTL_MS. */
export function signingDomain(ctx: AppContext, customerId: number, name: string): Promise<Domain> {
  const { domains } = cachesOf(ctx);
  const key = `${customerId}|${name}`;
  const hit = domains.get(key);
  if (hit && Date.now() - hit.at < DOMAIN_TTL_MS) return hit.domain;
  const domain = sendingDomain(laneReader(ctx), customerId, name);
  domain.catch(() => domains.delete(key));
  domains.set(key, { at: Date.now(), domain });
  return domain;
}

/** Hands the row the gate read to the load of the same attempt. */
export function handOver(ctx: AppContext, row: LaneDelivery): void {
  cachesOf(ctx).handed.set(row.id, { at: Date.now(), row });
}

/** The row the gate handed over for delivery `id`, once; undefined when there is none. */
export function takeOver(ctx: AppContext, id: number): LaneDelivery | undefined {
  const { handed } = cachesOf(ctx);
  const hit = handed.get(id);
  handed.delete(id);
  return hit && Date.now() - hit.at <= HANDED_MS ? hit.row : undefined;
}
