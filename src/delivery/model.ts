/**
 * What the delivery engine works on and the small interfaces it is given. The engine knows nothing of tables or HTTP:
 * a store loads one recipient's delivery and records its outcome, a tracker decorates HTML, a transport moves bytes.
 */
import type { KeyObject } from 'node:crypto';
import type { FinishIn } from '../jobs/finish.ts';

/** A mailbox as stored with a message. */
export interface Mailbox {
  address: string;
  name: string;
}

/** An attachment as stored with a message: content in base64. */
export interface StoredAttachment {
  fileName: string;
  contentType: string;
  content: string;
}

/** What a message says (opened from its sealed content). */
export interface MessageContent {
  subject: string;
  from: Mailbox;
  replyTo?: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  /** X- headers and List-Unsubscribe(-Post), as given. */
  headers: Record<string, string>;
  text?: string;
  html?: string;
  attachments: StoredAttachment[];
  unsubscribeUrl?: string;
}

/** The key a message is DKIM-signed with. */
export interface DkimKey {
  domainName: string;
  keySelector: string;
  /** PEM, or the parsed key (see dkim-keys.ts). */
  privateKey: string | KeyObject;
}

/** One recipient of one message, ready to deliver. */
export interface DeliveryItem {
  recipientId: number;
  /**
   * The message this copy is one of, where a kind's copies belong to a message of its own (transactional mail); logged
   * with each outcome. Undefined where each copy stands alone (campaign copies).
   */
  reference?: string;
  customerId: number;
  address: string;
  /** True once the recipient reached a final state (delivered or failed): it is never sent again. */
  final: boolean;
  /** The Message-ID header, in angle brackets. */
  headerMessageId: string;
  /** The envelope sender (MAIL FROM). */
  envelopeFrom: string;
  createdAt: number;
  allowNonTls: boolean;
  forceSecure: boolean;
  openTracking: boolean;
  /** Whether the engine rewrites the links for click tracking (only over a tracker that can). */
  linkTracking: boolean;
  /** Null when retention has purged it, or when it could not be made (then `contentError` says why). */
  content: MessageContent | null;
  contentError?: string;
  /** The From domain's keys, each adding one signature (RSA, Ed25519 or both); empty for unsigned mail. */
  dkim: DkimKey[];
  /**
   * Set only where `content` is the message's own, the same for every recipient (transactional mail): whether other
   * recipients of the message are still to be delivered, so a copy without tracking rendered for this one is kept
   * for them. Undefined where the content was made for this recipient (campaign copies), whose copies are never shared.
   */
  othersPending?: boolean;
}

/** What a recipient's row and event become after an attempt. */
export interface RecordedOutcome {
  status: 'deferred' | 'delivered' | 'failed';
  /** The receipt's deliveryStatus text. */
  deliveryStatus: string;
  event: 'delivered' | 'temporary_failure' | 'permanent_failure';
  /** The next hop's reply line (or what went wrong), one line, truncated. */
  response: string;
  /** capture | relay | mx, with `+secure` when a secure notification went instead of the message. */
  via: string;
  /** Whether the attempt went over TLS; null when nothing crossed a network (capture) or no connection was made. */
  tls: boolean | null;
  attempts: number;
  at: number;
}

/** Where deliveries come from and where their outcomes go. */
export interface DeliveryStore {
  /** The recipient's delivery, or undefined when the recipient no longer exists. */
  load(recipientId: number): Promise<DeliveryItem | undefined>;
  /** Stores the hash and expiry of the secure link about to be sent to the recipient. */
  saveSecureLink(recipientId: number, tokenHash: string, expiresAt: number): Promise<void>;
  /**
   * Records an outcome, its event and (when final) the message's pending count in one transaction, with the end of
   * the delivery's work row (`finish`) when given. Returns false and changes nothing when the recipient was already
   * final.
   */
  record(item: DeliveryItem, outcome: RecordedOutcome, finish?: FinishIn): Promise<boolean>;
}

/** Per-recipient open and click tracking of HTML bodies. */
export interface HtmlTracker {
  /**
   * The HTML with every tracked link pointing at its click URL for this recipient. Absent for a kind whose links are
   * already tracked when its content is made (campaign copies, where the template's own links are known).
   */
  rewriteLinks?(html: string, recipientId: number): string;
  /** The URL of this recipient's open pixel. */
  openPixelUrl(recipientId: number): string;
}
