// Small DOM helpers of the block editor: an element with attributes and children, and a labelled field bound to a
// property of a block.

/** An element: `text` sets its text, `false` or undefined leaves an attribute out, `true` sets it empty. */
export function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'text') node.textContent = v;
    else if (v !== false && v !== undefined) node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children || []) node.append(c);
  return node;
}

let uid = 0;
/** A fresh id for a label's `for`. */
export const nextId = () => `be-${++uid}`;

/** A labelled input bound to `obj[key]`. */
export function input(label, obj, key, onChange, opts) {
  const id = nextId();
  const box = el(opts && opts.multiline ? 'textarea' : 'input', {
    id,
    type: opts && opts.type,
    rows: opts && opts.multiline ? 6 : undefined,
    required: opts && opts.required,
  });
  box.value = opts && opts.get ? opts.get() : (obj[key] ?? '');
  box.addEventListener('input', () => {
    if (opts && opts.set) opts.set(box.value);
    else if (opts && opts.type === 'number') obj[key] = Number(box.value) || 0;
    else if (box.value === '' && opts && opts.optional) delete obj[key];
    else obj[key] = box.value;
    onChange(false);
  });
  return el('div', { class: 'field' }, [el('label', { for: id, text: label }), box]);
}
