/**
 * The component registry: for every type a form may use, the properties it takes, how the hosted page renders it and
 * how a submitted value is checked. Definition validation, rendering and submission checks all read this one table.
 */
import type { SafeHtml } from '../../http/html.ts';
import { ownValue } from '../../own.ts';
import type { Component, Upload } from './component-types.ts';
import {
  checkBox,
  checkChoice,
  checkChoices,
  checkDate,
  checkFile,
  checkNumber,
  checkSignature,
  checkText,
  type Checked,
} from './checks.ts';
import { RENDER, type FieldView } from './fields.html.ts';

/** How a property is checked when a definition is stored. `html` is sanitized; `url` must be https or a data: image. */
export type PropKind =
  'string' | 'html' | 'boolean' | 'integer' | 'number' | 'options' | 'mask' | 'strings' | 'date' | 'url';

/** A property of a component type. */
export interface PropSpec {
  kind: PropKind;
  required?: boolean;
  doc: string;
}

/** One component type. Types with `check` collect a value under `properties.field_name`. */
export interface ComponentType {
  props: Record<string, PropSpec>;
  render(c: Component, view: FieldView): SafeHtml;
  /** Checks the submitted value (or upload) of this component. */
  check?(c: Component, raw: unknown, upload: Upload | undefined): Checked;
}

const fieldName: PropSpec = {
  kind: 'string',
  required: true,
  doc: 'Key of the value in `form_data`; unique in the form.',
};
const label: PropSpec = { kind: 'html', doc: 'The label, as HTML (sanitized to an allowlist).' };
const required: PropSpec = { kind: 'boolean', doc: 'A value must be given.' };
const placeholder: PropSpec = { kind: 'string', doc: 'Placeholder text.' };
const options: PropSpec = {
  kind: 'options',
  required: true,
  doc: 'Non-empty list of strings or `{label, value}` objects.',
};
const maxLength: PropSpec = {
  kind: 'integer',
  doc: 'Longest value in characters (at most 10000, the default).',
};
/** The properties every labelled input that collects a value takes. */
const labelledField = { field_name: fieldName, text: label, required };

/** Every component type, by its `type` name. */
export const COMPONENTS: Record<string, ComponentType> = {
  TextInput: {
    props: {
      ...labelledField,
      placeholder,
      max_length: maxLength,
      input_mask: { kind: 'mask', doc: 'One of the input masks; default `Any`.' },
    },
    render: RENDER.TextInput!,
    check: (c, raw) => checkText(c, raw),
  },
  TextArea: {
    props: {
      ...labelledField,
      placeholder,
      max_length: maxLength,
      rows: { kind: 'integer', doc: 'Visible rows (default 4).' },
    },
    render: RENDER.TextArea!,
    check: (c, raw) => checkText(c, raw),
  },
  Select: {
    props: { ...labelledField, options, placeholder },
    render: RENDER.Select!,
    check: (c, raw) => checkChoice(c, raw),
  },
  RadioGroup: {
    props: { ...labelledField, options },
    render: RENDER.RadioGroup!,
    check: (c, raw) => checkChoice(c, raw),
  },
  CheckboxGroup: {
    props: { ...labelledField, options },
    render: RENDER.CheckboxGroup!,
    check: (c, raw) => checkChoices(c, raw),
  },
  Checkbox: {
    props: { ...labelledField },
    render: RENDER.Checkbox!,
    check: (c, raw) => checkBox(c, raw),
  },
  DateInput: {
    props: {
      ...labelledField,
      min: { kind: 'date', doc: 'Earliest date, YYYY-MM-DD.' },
      max: { kind: 'date', doc: 'Latest date, YYYY-MM-DD.' },
    },
    render: RENDER.DateInput!,
    check: (c, raw) => checkDate(c, raw),
  },
  NumberInput: {
    props: {
      ...labelledField,
      min: { kind: 'number', doc: 'Smallest value.' },
      max: { kind: 'number', doc: 'Largest value.' },
      step: { kind: 'number', doc: 'Step of the browser control.' },
      integer: { kind: 'boolean', doc: 'Only whole numbers.' },
    },
    render: RENDER.NumberInput!,
    check: (c, raw) => checkNumber(c, raw),
  },
  FileUpload: {
    props: {
      ...labelledField,
      accept: {
        kind: 'strings',
        doc: 'Accepted MIME types (`image/*` allowed); default PDF, PNG, JPEG, GIF, WebP, plain text.',
      },
      max_size_bytes: { kind: 'integer', doc: 'Largest file in bytes (default 5000000).' },
    },
    render: RENDER.FileUpload!,
    check: (c, _raw, upload) => checkFile(c, upload),
  },
  Signature: {
    props: { ...labelledField },
    render: RENDER.Signature!,
    check: (c, raw) => checkSignature(c, raw),
  },
  Hidden: {
    props: { field_name: fieldName, value: { kind: 'string', doc: 'The value the hosted page sends.' } },
    render: RENDER.Hidden!,
    check: (c, raw) => checkText(c, raw),
  },
  Heading: {
    props: {
      text: { kind: 'html', required: true, doc: 'Heading HTML.' },
      level: { kind: 'integer', doc: 'Heading level 1 to 6 (default 2).' },
    },
    render: RENDER.Heading!,
  },
  Paragraph: {
    props: { text: { kind: 'html', required: true, doc: 'Paragraph HTML.' } },
    render: RENDER.Paragraph!,
  },
  Divider: { props: {}, render: RENDER.Divider! },
  Image: {
    props: {
      src: { kind: 'url', required: true, doc: 'An https URL or a data:image URL.' },
      alt: { kind: 'string', required: true, doc: 'Text alternative.' },
      width: { kind: 'integer', doc: 'Width in pixels.' },
    },
    render: RENDER.Image!,
  },
  Button: {
    props: {
      text: { kind: 'html', doc: 'Button label (default "Submit").' },
      margin: { kind: 'string', doc: 'CSS margin, such as `16px 0`.' },
      full_width: { kind: 'boolean', doc: 'Stretch across the form.' },
    },
    render: RENDER.Button!,
  },
};

/** True for a component that collects a value. */
export function isField(c: Component): boolean {
  return ownValue(COMPONENTS, c.type)?.check !== undefined;
}
