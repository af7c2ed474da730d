/** Checks of one submitted value per kind of field; each returns the value to store or a message that never repeats the value. */
import { isDecodableImage } from './images.ts';
import { isIsoDate, maskProblem, type Mask } from './masks.ts';
import { flag, num, optionsOf, str, type Component, type Upload } from './component-types.ts';

/** The outcome of checking one field. `value` undefined means "nothing to store". */
export type Checked = { value?: unknown; file?: Upload & { contentType: string }; error?: string };

const MAX_TEXT = 10_000;
const TRUE = new Set(['true', 'on', '1', 'yes']);

/** A submitted value as one string (numbers and booleans written out; arrays and objects are not text). */
function text(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw.trim();
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  if (Array.isArray(raw) && raw.length === 1) return text(raw[0]);
  return undefined;
}

const missing = (c: Component): Checked => (flag(c, 'required') ? { error: 'is required' } : {});

/** TextInput, TextArea, Hidden: a string within the length limit that fits the input mask. */
export function checkText(c: Component, raw: unknown): Checked {
  if (raw === undefined || raw === null || raw === '') return missing(c);
  const v = text(raw);
  if (v === undefined) return { error: 'must be text' };
  if (v === '') return missing(c);
  const max = Math.min(num(c, 'max_length') ?? MAX_TEXT, MAX_TEXT);
  if (v.length > max) return { error: `must be at most ${max} characters` };
  const problem = maskProblem((str(c, 'input_mask', 'Any') as Mask) || 'Any', v);
  return problem ? { error: problem } : { value: v };
}

/** Select and RadioGroup: one of the listed option values. */
export function checkChoice(c: Component, raw: unknown): Checked {
  const v = text(raw);
  if (v === undefined || v === '')
    return raw === undefined || raw === null || raw === '' || v === ''
      ? missing(c)
      : { error: 'must be one option' };
  return optionsOf(c).some((o) => o.value === v)
    ? { value: v }
    : { error: 'must be one of the listed options' };
}

/** CheckboxGroup: a list of listed option values (a single string counts as a list of one). */
export function checkChoices(c: Component, raw: unknown): Checked {
  const list = raw === undefined || raw === null || raw === '' ? [] : Array.isArray(raw) ? raw : [raw];
  const values = list.map(text);
  if (values.some((v) => v === undefined)) return { error: 'must be a list of options' };
  const chosen = [...new Set(values as string[])].filter((v) => v !== '');
  if (chosen.length === 0) return missing(c);
  const allowed = new Set(optionsOf(c).map((o) => o.value));
  return chosen.every((v) => allowed.has(v))
    ? { value: chosen }
    : { error: 'must contain only the listed options' };
}

/** Checkbox: true when ticked; a required checkbox must be ticked. */
export function checkBox(c: Component, raw: unknown): Checked {
  const v = text(raw)?.toLowerCase();
  const on = raw === true || (v !== undefined && TRUE.has(v));
  if (!on && flag(c, 'required')) return { error: 'must be checked' };
  return { value: on };
}

/** DateInput: YYYY-MM-DD within min and max. */
export function checkDate(c: Component, raw: unknown): Checked {
  const v = text(raw);
  if (!v) return missing(c);
  if (!isIsoDate(v)) return { error: 'must be a date written YYYY-MM-DD' };
  const min = str(c, 'min');
  const max = str(c, 'max');
  if (min && v < min) return { error: `must be on or after ${min}` };
  if (max && v > max) return { error: `must be on or before ${max}` };
  return { value: v };
}

/** NumberInput: a number within min and max, whole when `integer` is set. */
export function checkNumber(c: Component, raw: unknown): Checked {
  const v = text(raw);
  if (!v) return missing(c);
  if (maskProblem(flag(c, 'integer') ? 'Integer' : 'Number', v))
    return { error: flag(c, 'integer') ? 'must be a whole number' : 'must be a number' };
  const n = Number(v);
  const min = num(c, 'min');
  const max = num(c, 'max');
  if (min !== undefined && n < min) return { error: `must be at least ${min}` };
  if (max !== undefined && n > max) return { error: `must be at most ${max}` };
  return { value: n };
}

/** Signature: a drawn image as a PNG or JPEG data URL, or a typed name. */
export function checkSignature(c: Component, raw: unknown): Checked {
  const v = text(raw);
  if (!v) return missing(c);
  if (v.startsWith('data:')) {
    const m = /^data:image\/(png|jpeg);base64,([A-Za-z0-9+/=\s]+)$/.exec(v);
    const bytes = m ? Buffer.from(m[2]!, 'base64') : undefined;
    if (!bytes || sniff(bytes) !== `image/${m![1]}` || !isDecodableImage(bytes))
      return { error: 'must be a PNG or JPEG image' };
    if (bytes.length > 1_000_000) return { error: 'must be at most 1000000 bytes' };
    return { value: v.replace(/\s/g, '') };
  }
  return v.length > 200 ? { error: 'must be at most 200 characters' } : { value: v };
}

/** Default file types a FileUpload accepts when it lists none. */
export const DEFAULT_ACCEPT = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'text/plain',
];
/** Default largest upload, in bytes. */
export const DEFAULT_MAX_FILE_BYTES = 5_000_000;

/** FileUpload: a file whose type (read from its bytes, not its name) is accepted and whose size is within the limit. */
export function checkFile(c: Component, upload: Upload | undefined): Checked {
  if (!upload || upload.bytes.length === 0) return missing(c);
  const max = num(c, 'max_size_bytes') ?? DEFAULT_MAX_FILE_BYTES;
  if (upload.bytes.length > max) return { error: `must be at most ${max} bytes` };
  const accept = Array.isArray(c.properties.accept) ? (c.properties.accept as string[]) : DEFAULT_ACCEPT;
  const type = sniff(upload.bytes);
  const ok =
    type !== undefined &&
    accept.some((a) => a === type || (a.endsWith('/*') && type.startsWith(a.slice(0, -1))));
  if (!ok) return { error: `must be a file of type ${accept.join(', ')}` };
  const name = upload.name.replace(/[\\/\r\n\0]/g, '_').slice(0, 200) || 'upload';
  return { value: name, file: { name, bytes: upload.bytes, contentType: type } };
}

/** The type of a file read from its first bytes: PDF, PNG, JPEG, GIF, WebP, or plain UTF-8 text; undefined otherwise. */
export function sniff(b: Buffer): string | undefined {
  const head = b.subarray(0, 12);
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (/^GIF8[79]a/.test(head.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  if (!b.includes(0) && Buffer.from(b.toString('utf8'), 'utf8').equals(b)) return 'text/plain';
  return undefined;
}
