/**
 * Building blocks of console action bodies. A console form posts urlencoded fields, so every value is a string, and a
 * field the page repeats (checkboxes) arrives as a list when more than one is ticked. Fields are optional where the
 * action already answers a missing one with its own message; the CSRF field and any other extra field pass through.
 * The forms of people without a session (sign-in and its kin) declare their CSRF field and a length for every field.
 */
import { Type, type ObjectOptions, type TProperties } from '@sinclair/typebox';

/** The body of a console form with these fields (`patternProperties` in `options` for fields named by the page). */
export const Form = <P extends TProperties>(fields: P, options?: ObjectOptions) =>
  Type.Object(fields, options);

/** A form without fields of its own (a button): only the CSRF token is posted. */
export const NoFields = Type.Object({});

/** A field the form requires: one string, of at most `maxLength` characters when given. */
export const Field = (maxLength?: number) => Type.String(maxLength === undefined ? {} : { maxLength });

/** A text field, a select or a radio group: one string (of at most `maxLength` characters), absent when not sent. */
export const Text = (maxLength?: number) => Type.Optional(Field(maxLength));

/** The CSRF token a form carries; its value is checked before the schema's verdict is read. */
export const Csrf = () => Field(128);

/** The value of a field the page may repeat: one string or a list of them. */
export const OneOrMany = () => Type.Union([Type.String(), Type.Array(Type.String())]);

/** A field the page may repeat (checkboxes of one name), absent when not sent. */
export const Repeated = () => Type.Optional(OneOrMany());

/** A form of text fields with these names. */
export const TextFields = <K extends string>(names: readonly K[]) =>
  Type.Object(Object.fromEntries(names.map((n) => [n, Text()])) as Record<K, ReturnType<typeof Text>>);
