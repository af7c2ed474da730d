/**
 * Building blocks of console action bodies. A console form posts urlencoded fields, so every value is a string, and a
 * field the page repeats (checkboxes) arrives as a list when more than one is ticked. Fields are optional where the
 * action already answers a missing one with its own message; the CSRF field and any other extra field pass through.
 */
import { Type, type ObjectOptions, type TProperties } from '@sinclair/typebox';

/** The body of a console form with these fields (`patternProperties` in `options` for fields named by the page). */
export const Form = <P extends TProperties>(fields: P, options?: ObjectOptions) =>
  Type.Object(fields, options);

/** A form without fields of its own (a button): only the CSRF token is posted. */
export const NoFields = Type.Object({});

/** A text field, a select or a radio group: one string, absent when not sent. */
export const Text = () => Type.Optional(Type.String());

/** The value of a field the page may repeat: one string or a list of them. */
export const OneOrMany = () => Type.Union([Type.String(), Type.Array(Type.String())]);

/** A field the page may repeat (checkboxes of one name), absent when not sent. */
export const Repeated = () => Type.Optional(OneOrMany());

/** A form of text fields with these names. */
export const TextFields = <K extends string>(names: readonly K[]) =>
  Type.Object(Object.fromEntries(names.map((n) => [n, Text()])) as Record<K, ReturnType<typeof Text>>);
