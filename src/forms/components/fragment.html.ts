/** A definition's fields without a page around them: the stored `form_html`, and the body of the hosted page. */
import { html, raw, type SafeHtml } from '../../http/html.ts';
import { ownValue } from '../../own.ts';
import { COMPONENTS } from './components.ts';
import { fieldName, type Component } from './component-types.ts';

/** The fields of a definition without a page around them: the stored `form_html` when a definition gives none. */
export function renderFragment(
  components: Component[],
  values: Record<string, unknown> = {},
  errors: Record<string, string> = {},
  affirmation?: string,
): SafeHtml {
  const parts = components.map((c, index) => {
    const name = fieldName(c);
    const view = { index, value: name ? values[name] : undefined, error: name ? errors[name] : undefined };
    return ownValue(COMPONENTS, c.type)!.render(
      c,
      c.type === 'Signature' && affirmation ? { ...view, affirmation } : view,
    );
  });
  if (!components.some((c) => c.type === 'Button'))
    parts.push(html`<button type="submit" class="sp-button">Submit</button>`);
  return raw(parts.join('\n'));
}
