/**
 * A kind of outbound mail (transactional or marketing) as the parts that are the same for both see it: the lane its
 * deliveries are worked on, the store the delivery engine loads and records through, how its HTML is tracked, where the
 * capture transport keeps its copies, how its public links count opens, clicks and unsubscribes, and how the secure
 * page finds a delivery by its secure link. Each kind keeps its own tables; the composition root builds the list of
 * kinds once and hands it to the delivery lanes, the tracking routes and the secure page, so none of them imports a
 * kind.
 */
import type { Brand } from '../markup/brand.ts';
import type { DeliveryStore, HtmlTracker, MessageContent } from './model.ts';
import type { CaptureStore } from './transport.ts';

/** The names of the kinds, also the `lane` label of the pipeline metrics. */
export type MailKindName = 'transactional' | 'marketing';

/** One kind of outbound mail. */
export interface MailKind {
  name: MailKindName;
  lane: KindLane;
  store: DeliveryStore;
  tracker: HtmlTracker;
  capture: CaptureStore;
  tracking: KindTracking;
  secure: SecureLookup;
}

/** The work-row queue a kind's deliveries are worked on, and its policy: every setting given, none left to a default. */
export interface KindLane {
  /** The queue name of the work rows. */
  queue: string;
  /** The payload field of a work row holding the delivery id. */
  idField: string;
  /** Deliveries each worker process runs at once. */
  concurrency: number;
  /** Deliveries at once while API requests share the worker's loop. */
  contendedConcurrency: number;
  /** Most attempts each worker process starts per second, spaced evenly after the checks pass; 0 for no limit. */
  sendRate: number;
  /** What the lane asks the kind around each attempt; null when every delivery goes ahead as queued. */
  checks: LaneChecks | null;
}

/** The kind's say around each attempt, for a kind whose deliveries may be stopped or settled outside the engine. */
export interface LaneChecks {
  /** Runs before every attempt; false drops the attempt (the work row finishes without sending). */
  gate(id: number): Promise<boolean>;
  /** Runs when the engine skipped the delivery (gone, or already final), so the kind can settle what it keeps. */
  onSkipped(id: number): Promise<void>;
  /** Runs when the work row failed for good, also from errors that recorded no outcome. */
  onFailed(id: number, error: string): Promise<void>;
}

/** The public links of a kind's mail. A bad token and a token of a delivery that is gone throw the same not-found. */
export interface KindTracking {
  /** Path prefix: the pixel is `<prefix>/o/<token>.gif`, the click `<prefix>/c/<token>`. */
  prefix: string;
  /** The OpenAPI tags of its routes. */
  tags: string[];
  /** Counts an open by the pixel's path segment (`<token>.gif` or `<token>`). */
  open(segment: string): Promise<void>;
  /** Counts a click and returns where the link goes. */
  click(token: string): Promise<string>;
  /** The unsubscribe link of a kind that keeps subscriptions itself; transactional mail has none. */
  unsubscribe?: KindUnsubscribe;
}

/** What the unsubscribe page shows about a delivery. */
export interface UnsubscribeInfo {
  email: string;
  listName: string | null;
  customerName: string | null;
  /** Already unsubscribed from the list / from everything. */
  unsubscribed: boolean;
  globallyUnsubscribed: boolean;
  /** The sending account's brand, shown around the page. */
  brand?: Brand;
}

/** The unsubscribe link `/u/<token>`: reading what it would do, and doing it. */
export interface KindUnsubscribe {
  /** What the confirm page shows; changes nothing. */
  info(token: string): Promise<UnsubscribeInfo>;
  /** Unsubscribes from the list the email went to, or from everything when `global`; repeating changes nothing more. */
  apply(token: string, global: boolean): Promise<UnsubscribeInfo>;
}

/** How the secure page finds a delivery by the SHA-256 (hex) of its secure link token. */
export interface SecureLookup {
  /** The link, or undefined when no delivery of this kind has it. */
  find(tokenHash: string): Promise<SecureLink | undefined>;
}

/** A secure link found: when it expires, and the copy it shows (read only once the link is known to be current). */
export interface SecureLink {
  expiresAt: number | null;
  /** The account that sent the message (whose brand the page shows). */
  customerId: number;
  /** What the audit trail names as read: `message:<id>` or `campaign_delivery:<id>`. */
  target: string;
  /** The message as its recipient would have got it; null when retention purged it. */
  read(): Promise<SecureCopy | null>;
}

/** What the secure page shows. */
export interface SecureCopy {
  content: MessageContent;
  address: string;
  createdAt: number;
}
