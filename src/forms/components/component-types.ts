/** The shape of a form definition's components and small readers of their properties, shared by the registry, renderer and checks. */

/** One element of `form_json.body`. */
export interface Component {
  type: string;
  id: string;
  properties: Record<string, unknown>;
}

/** A choice of a Select, RadioGroup or CheckboxGroup. */
export interface Option {
  label: string;
  value: string;
}

/** A file as it arrived, before checks. */
export interface Upload {
  name: string;
  bytes: Buffer;
}

/** A string property, or `fallback`. */
export function str(c: Component, name: string, fallback = ''): string {
  const v = c.properties[name];
  return typeof v === 'string' ? v : fallback;
}

/** A boolean property (absent is false). */
export function flag(c: Component, name: string): boolean {
  return c.properties[name] === true;
}

/** A numeric property, or undefined. */
export function num(c: Component, name: string): number | undefined {
  const v = c.properties[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The options of a choice component, written either as strings or as `{label, value}`. */
export function optionsOf(c: Component): Option[] {
  const raw = c.properties.options;
  if (!Array.isArray(raw)) return [];
  return raw.map((o) =>
    typeof o === 'string'
      ? { label: o, value: o }
      : { label: String((o as Option).label), value: String((o as Option).value) },
  );
}

/** The field name a component submits under (empty for layout components). */
export function fieldName(c: Component): string {
  return str(c, 'field_name');
}

/** Plain text of a component's label (its sanitized `text` without tags), or its field name. */
export function labelOf(c: Component): string {
  const plain = str(c, 'text')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
  return plain || fieldName(c);
}
