// Rich text of a paragraph block, edited with Tiptap (ProseMirror): bold, italic, links and lists, with a toolbar
// whose buttons say whether their mark is on.
import { Editor } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import Link from '@tiptap/extension-link';
import { el } from './dom.js';

function linkChain(editor, chain) {
  if (editor.isActive('link')) return chain.unsetLink();
  const href = window.prompt('Link address (https://…)', 'https://');
  return href ? chain.extendMarkRange('link').setLink({ href }) : chain;
}

/**
 * A Tiptap editor for `target.html`, with its toolbar: `{ node, editor }`. `onUpdate` runs after each change of the
 * text, `onFocus` when the editor takes the focus; the caller destroys the editor when it redraws.
 */
export function richText(target, label, onUpdate, onFocus) {
  const surface = el('div', { class: 'rich-surface' });
  const editor = new Editor({
    element: surface,
    injectCSS: false,
    extensions: [
      StarterKit.configure({ heading: false, codeBlock: false, horizontalRule: false, link: false }),
      Link.configure({ openOnClick: false, protocols: ['https', 'http', 'mailto'] }),
    ],
    content: target.html,
    editorProps: { attributes: { role: 'textbox', 'aria-multiline': 'true', 'aria-label': label } },
    onUpdate: () => {
      target.html = editor.getHTML();
      onUpdate();
    },
    onFocus: () => onFocus(editor),
  });
  const tool = (text, run, mark) => {
    const b = el('button', {
      type: 'button',
      text,
      'aria-label': `${text} (${label})`,
      'aria-pressed': 'false',
    });
    b.addEventListener('mousedown', (e) => e.preventDefault());
    b.addEventListener('click', () => run(editor.chain().focus()).run());
    if (mark) editor.on('transaction', () => b.setAttribute('aria-pressed', String(editor.isActive(mark))));
    return b;
  };
  const toolbar = el(
    'div',
    { class: 'rich-toolbar', role: 'toolbar', 'aria-label': `Formatting of ${label}` },
    [
      tool('Bold', (c) => c.toggleBold(), 'bold'),
      tool('Italic', (c) => c.toggleItalic(), 'italic'),
      tool('Link', (c) => linkChain(editor, c), 'link'),
      tool('Bulleted list', (c) => c.toggleBulletList(), 'bulletList'),
      tool('Numbered list', (c) => c.toggleOrderedList(), 'orderedList'),
    ],
  );
  return { node: el('div', { class: 'rich' }, [toolbar, surface]), editor };
}
