/**
 * The builder's wording of a refused definition. The forms service names a component by its place in the JSON
 * (`form_json.body[3] (Select): properties.options is required`), which suits the API; a person editing the form
 * knows the component by its label, so the builder says `“Preferred time”: Options is required` instead.
 */
import type { Component } from '../../forms/components/component-types.ts';
import { labelOf } from '../../forms/components/component-types.ts';
import { ownValue } from '../../own.ts';
import { PROP_LABELS, quoted, TYPE_LABELS } from './builder-state.ts';

/** A refusal as the builder shows it, and the index of the component it is about (to mark that card). */
export interface BuilderError {
  text: string;
  index?: number;
}

/** How a component is named in a message: its label, else its type and place. */
function nameOf(c: Component | undefined, index: number): string {
  const label = c && c.properties && typeof c.properties === 'object' ? labelOf(c) : '';
  if (label) return quoted(label);
  const type = typeof c?.type === 'string' ? (ownValue(TYPE_LABELS, c.type) ?? 'Component') : 'Component';
  return `${type} (component ${index + 1})`;
}

/** A property's builder label without its hint in brackets, e.g. `Options`. */
function propName(name: string): string {
  return (ownValue(PROP_LABELS, name) ?? name.replace(/_/g, ' ')).replace(/\s*\(.*\)$/, '');
}

/** What went wrong with one component, in the builder's words. */
function problemText(problem: string): string {
  if (/^unknown component type/.test(problem)) return 'choose a type';
  if (/^a component must be an object/.test(problem))
    return 'is not a component; give it a type and properties';
  let m: RegExpExecArray | null;
  if ((m = /^duplicate field_name "([^"]*)"/.exec(problem)))
    return `another component already uses the field name "${m[1]}"; change one under Advanced`;
  if (/^duplicate id/.test(problem)) return 'has the same id as another component; delete one of them';
  if ((m = /^properties\.field_name (.*)$/s.exec(problem))) return `the field name ${m[1]}`;
  if ((m = /^properties\.([a-z_]+) (.*)$/s.exec(problem))) return `${propName(m[1]!)} ${m[2]}`;
  return problem;
}

/** The builder's wording of a service or step message about `components` (messages about no component pass as they are). */
export function builderError(message: string, components: readonly Component[]): BuilderError {
  const m = /^form_json\.body\[(\d+)\](?: \([^)]*\))?: (.*)$/s.exec(message);
  if (!m) return { text: message };
  const index = Number(m[1]);
  return { text: `${nameOf(components[index], index)}: ${problemText(m[2]!)}`, index };
}
