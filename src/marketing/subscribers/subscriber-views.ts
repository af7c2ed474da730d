/** How subscribers are shown: the short form (lists, create, update) and the full form (one subscriber). */
import type { SubscriberRow } from './subscribers.repository.ts';

/** Attributes every subscriber answer carries. */
export interface ShortAttributes {
  /** Null for a subscriber known by phone only. */
  email: string | null;
  unsubscribed: boolean;
  first_name: string | null;
  last_name: string | null;
  /** First and last name joined by a space; null when both are absent. */
  full_name: string | null;
  created_at: string;
}

/** A subscriber in the list, create and update answers. */
export interface SubscriberShort {
  id: string;
  type: 'subscriber';
  attributes: ShortAttributes;
}

/** Campaign counters of one subscriber. */
export interface SubscriberStatistics {
  deliveries: number;
  delivered: number;
  opened: number;
  clicked: number;
  soft_bounced: number;
  hard_bounced: number;
  unsubscribed: number;
  global_unsubscribed: number;
}

/** A subscriber with every attribute. */
export interface SubscriberFull {
  id: string;
  type: 'subscriber';
  attributes: ShortAttributes & {
    phone_number: string | null;
    phone_number_input: string | null;
    updated_at: string;
    custom_fields: {
      subscriber_custom_field_type_id: string;
      custom_field_name: string;
      custom_field_value: string;
      name: string;
      value: string;
    }[];
    subscription_lists: { id: number; uuid: string; name: string; unsubscribed: boolean }[];
    statistics?: SubscriberStatistics;
  };
}

/** The short form. */
export function shortView(r: SubscriberRow): SubscriberShort {
  return { id: r.uuid, type: 'subscriber', attributes: shortAttributes(r) };
}

/** The full form, with the counters when asked. */
export function fullView(
  r: SubscriberRow,
  lists: { id: number | bigint; uuid: string; name: string; unsubscribed: number }[],
  fields: { uuid: string; name: string; value: string }[],
  withStats: boolean,
): SubscriberFull {
  return {
    id: r.uuid,
    type: 'subscriber',
    attributes: {
      ...shortAttributes(r),
      phone_number: r.phone_number,
      phone_number_input: r.phone_number_input ?? null,
      updated_at: new Date(Number(r.updated_at)).toISOString(),
      custom_fields: fields.map((f) => ({
        subscriber_custom_field_type_id: f.uuid,
        custom_field_name: f.name,
        custom_field_value: f.value,
        name: f.name,
        value: f.value,
      })),
      subscription_lists: lists.map((l) => ({
        id: Number(l.id),
        uuid: l.uuid,
        name: l.name,
        unsubscribed: Number(l.unsubscribed) === 1,
      })),
      ...(withStats && { statistics: statistics(r) }),
    },
  };
}

function shortAttributes(r: SubscriberRow): ShortAttributes {
  return {
    email: r.email === '' ? null : r.email,
    unsubscribed: r.unsubscribed === 1,
    first_name: r.first_name,
    last_name: r.last_name,
    full_name: [r.first_name, r.last_name].filter(Boolean).join(' ') || null,
    created_at: new Date(Number(r.created_at)).toISOString(),
  };
}

function statistics(r: SubscriberRow): SubscriberStatistics {
  return {
    deliveries: Number(r.stat_deliveries),
    delivered: Number(r.stat_delivered),
    opened: Number(r.stat_opened),
    clicked: Number(r.stat_clicked),
    soft_bounced: Number(r.stat_soft_bounced),
    hard_bounced: Number(r.stat_hard_bounced),
    unsubscribed: Number(r.stat_unsubscribed),
    global_unsubscribed: Number(r.stat_global_unsubscribed),
  };
}
