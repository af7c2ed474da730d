// The block editor of the compose form, bundled by bin/build.js into one script served as
// /console/assets/block-editor.js. It edits the block document kept in the form's `content_blocks` field: blocks are
// added, moved (buttons or drag), deleted, with undo and redo; rich text inside paragraphs and columns is edited with
// Tiptap (ProseMirror). The preview posts the document into a sandboxed frame (the server renders it as sent), and the
// checks come back as a list. An image block takes a URL; a library picker may answer the `block-editor:pick-image`
// event (detail.choose(url, alt)) to fill it instead.
import { Editor } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import Link from '@tiptap/extension-link';

const KINDS = [
  ['heading', 'Heading'],
  ['paragraph', 'Paragraph'],
  ['image', 'Image'],
  ['button', 'Button'],
  ['divider', 'Divider'],
  ['spacer', 'Spacer'],
  ['columns', 'Two columns'],
  ['markdown', 'Markdown'],
  ['footer', 'Footer'],
];
const LABEL = Object.fromEntries(KINDS);

function fresh(kind) {
  switch (kind) {
    case 'heading':
      return { type: 'heading', text: 'A heading', level: 2 };
    case 'paragraph':
      return { type: 'paragraph', html: '<p>Some text.</p>' };
    case 'image':
      return { type: 'image', src: 'https://', alt: '' };
    case 'button':
      return { type: 'button', text: 'Read more', href: 'https://' };
    case 'spacer':
      return { type: 'spacer', height: 24 };
    case 'columns':
      return {
        type: 'columns',
        columns: [
          [{ type: 'paragraph', html: '<p>Left</p>' }],
          [{ type: 'paragraph', html: '<p>Right</p>' }],
        ],
      };
    case 'markdown':
      return { type: 'markdown', markdown: 'Some **Markdown**.' };
    case 'footer':
      return { type: 'footer' };
    default:
      return { type: kind };
  }
}

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'text') node.textContent = v;
    else if (v !== false && v !== undefined) node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children || []) node.append(c);
  return node;
}

let uid = 0;
/** A labelled input bound to `obj[key]`. */
function input(label, obj, key, onChange, opts) {
  const id = `be-${++uid}`;
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

class BlockEditor {
  constructor(root, store, form) {
    this.root = root;
    this.store = store;
    this.form = form;
    this.doc = JSON.parse(store.value);
    this.past = [];
    this.future = [];
    this.saved = store.value;
    this.editors = [];
    this.focus = null;
    this.typingTimer = null;
    this.previewTimer = null;
  }

  /** Records a change: structural changes redraw the blocks; typing is grouped into one undo step. */
  changed(structural) {
    const now = JSON.stringify(this.doc);
    if (now === this.saved) return;
    this.store.value = now;
    this.store.dispatchEvent(new Event('input', { bubbles: true }));
    clearTimeout(this.typingTimer);
    const commit = () => {
      if (this.saved === this.store.value) return;
      this.past.push(this.saved);
      this.future = [];
      this.saved = this.store.value;
      this.updateHistoryButtons();
    };
    if (structural) {
      commit();
      this.draw();
    } else this.typingTimer = setTimeout(commit, 400);
    this.schedulePreview();
  }

  step(from, to) {
    clearTimeout(this.typingTimer);
    if (this.saved !== this.store.value) {
      this.past.push(this.saved);
      this.saved = this.store.value;
    }
    if (from.length === 0) return;
    to.push(this.saved);
    this.saved = from.pop();
    this.store.value = this.saved;
    this.doc = JSON.parse(this.saved);
    this.draw();
    this.updateHistoryButtons();
    this.schedulePreview();
  }

  mount() {
    const add = el('select', { id: 'be-add', 'aria-label': 'Block to add' }, [
      ...KINDS.map(([k, l]) => el('option', { value: k, text: l })),
    ]);
    const addButton = el('button', { type: 'button', text: 'Add block' });
    addButton.addEventListener('click', () => {
      this.doc.blocks.push(fresh(add.value));
      this.changed(true);
    });
    this.undoButton = el('button', { type: 'button', text: 'Undo', disabled: true });
    this.redoButton = el('button', { type: 'button', text: 'Redo', disabled: true });
    this.undoButton.addEventListener('click', () => this.step(this.past, this.future));
    this.redoButton.addEventListener('click', () => this.step(this.future, this.past));
    this.list = el('ol', { class: 'block-list', 'aria-label': 'Blocks of the email' });
    this.root.append(
      el('div', { class: 'block-toolbar' }, [add, addButton, this.undoButton, this.redoButton]),
      this.list,
    );
    this.root.addEventListener('focusin', (e) => {
      if (e.target.matches('input[type=text], input:not([type]), textarea')) this.focus = { input: e.target };
    });
    this.hookFieldMenu();
    this.draw();
    this.setUpPreview();
  }

  updateHistoryButtons() {
    this.undoButton.disabled = this.past.length === 0 && this.saved === this.store.value;
    this.redoButton.disabled = this.future.length === 0;
  }

  draw() {
    for (const e of this.editors) e.destroy();
    this.editors = [];
    this.focus = null;
    this.list.replaceChildren(...this.doc.blocks.map((b, i) => this.card(b, i)));
  }

  card(block, i) {
    const n = i + 1;
    const name = `${LABEL[block.type] || block.type} ${n}`;
    const move = (to) => {
      const [b] = this.doc.blocks.splice(i, 1);
      this.doc.blocks.splice(to, 0, b);
      this.changed(true);
    };
    const button = (text, label, action, disabled) => {
      const b = el('button', { type: 'button', text, 'aria-label': label, disabled });
      b.addEventListener('click', action);
      return b;
    };
    const card = el('li', { class: 'block-card', draggable: 'true', 'data-index': i }, [
      el('div', { class: 'block-head' }, [
        el('span', { class: 'drag-handle', 'aria-hidden': 'true', text: '⠿' }),
        el('strong', { text: name }),
        button('↑', `Move ${name} up`, () => move(i - 1), i === 0),
        button('↓', `Move ${name} down`, () => move(i + 1), i === this.doc.blocks.length - 1),
        button('Delete', `Delete ${name}`, () => {
          this.doc.blocks.splice(i, 1);
          this.changed(true);
        }),
      ]),
      this.body(block, name),
    ]);
    card.addEventListener('dragstart', (e) => {
      if (e.target !== card) return;
      e.dataTransfer.setData('text/x-block-index', String(i));
      e.dataTransfer.effectAllowed = 'move';
    });
    card.addEventListener('dragover', (e) => {
      if (e.dataTransfer.types.includes('text/x-block-index')) e.preventDefault();
    });
    card.addEventListener('drop', (e) => {
      const from = Number(e.dataTransfer.getData('text/x-block-index'));
      if (Number.isNaN(from) || from === i) return;
      e.preventDefault();
      const [b] = this.doc.blocks.splice(from, 1);
      this.doc.blocks.splice(i, 0, b);
      this.changed(true);
    });
    return card;
  }

  body(block, name) {
    const on = (s) => this.changed(s);
    switch (block.type) {
      case 'heading':
        return el('div', { class: 'block-body' }, [input(`${name}: text`, block, 'text', on)]);
      case 'paragraph':
        return el('div', { class: 'block-body' }, [this.rich(block, `${name}: text`)]);
      case 'columns':
        return el(
          'div',
          { class: 'block-body block-columns' },
          block.columns.map((col, c) => {
            if (!col[0] || col[0].type !== 'paragraph') col.unshift({ type: 'paragraph', html: '<p></p>' });
            return this.rich(col[0], `${name}: ${c === 0 ? 'left' : 'right'} column`);
          }),
        );
      case 'image':
        return this.imageBody(block, name);
      case 'button':
        return el('div', { class: 'block-body' }, [
          input(`${name}: label`, block, 'text', on),
          input(`${name}: link`, block, 'href', on, { type: 'url' }),
        ]);
      case 'spacer':
        return el('div', { class: 'block-body' }, [
          input(`${name}: height in pixels`, block, 'height', on, { type: 'number' }),
        ]);
      case 'markdown':
        return el('div', { class: 'block-body' }, [
          input(`${name}: Markdown`, block, 'markdown', on, { multiline: true }),
        ]);
      case 'footer':
        return this.footerBody(block, name);
      default:
        return el('div', { class: 'block-body' }, []);
    }
  }

  imageBody(block, name) {
    const on = (s) => this.changed(s);
    const body = el('div', { class: 'block-body' }, [
      input(`${name}: image URL`, block, 'src', on, { type: 'url' }),
      input(`${name}: alt text`, block, 'alt', on),
      input(`${name}: link (optional)`, block, 'link', on, { type: 'url', optional: true }),
    ]);
    // The seam for an image library: a picker that answers this event fills the block.
    const pick = new CustomEvent('block-editor:pick-image', {
      cancelable: true,
      detail: {
        choose: (src, alt) => {
          block.src = src;
          if (alt !== undefined) block.alt = alt;
          this.changed(true);
        },
      },
    });
    if (!document.dispatchEvent(pick)) body.classList.add('has-picker');
    return body;
  }

  footerBody(block, name) {
    const on = (s) => this.changed(s);
    return el('div', { class: 'block-body' }, [
      el('p', { class: 'hint', text: 'Shows your postal address and the unsubscribe and preference links.' }),
      input(`${name}: line above the address`, block, 'text', on, { optional: true }),
      input(`${name}: social links, one a line (Name https://…)`, block, 'social', on, {
        multiline: true,
        get: () => (block.social || []).map((s) => `${s.network} ${s.href}`).join('\n'),
        set: (value) => {
          const links = value
            .split('\n')
            .map((l) => /^(.+?)\s+(\S+)$/.exec(l.trim()))
            .filter(Boolean)
            .map((m) => ({ network: m[1], href: m[2] }));
          if (links.length) block.social = links;
          else delete block.social;
        },
      }),
    ]);
  }

  /** A Tiptap editor for `target.html`, with its toolbar. */
  rich(target, label) {
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
        this.changed(false);
      },
      onFocus: () => {
        this.focus = { editor };
      },
    });
    this.editors.push(editor);
    const tool = (text, aria, run, mark) => {
      const b = el('button', {
        type: 'button',
        text,
        'aria-label': `${aria} (${label})`,
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
        tool('Bold', 'Bold', (c) => c.toggleBold(), 'bold'),
        tool('Italic', 'Italic', (c) => c.toggleItalic(), 'italic'),
        tool('Link', 'Link', (c) => this.linkChain(editor, c), 'link'),
        tool('Bulleted list', 'Bulleted list', (c) => c.toggleBulletList(), 'bulletList'),
        tool('Numbered list', 'Numbered list', (c) => c.toggleOrderedList(), 'orderedList'),
      ],
    );
    return el('div', { class: 'rich' }, [toolbar, surface]);
  }

  linkChain(editor, chain) {
    if (editor.isActive('link')) return chain.unsetLink();
    const href = window.prompt('Link address (https://…)', 'https://');
    return href ? chain.extendMarkRange('link').setLink({ href }) : chain;
  }

  /** The personalisation menu inserts into the block field or text that had the focus last. */
  hookFieldMenu() {
    document.addEventListener(
      'click',
      (e) => {
        const b = e.target.closest && e.target.closest('button[data-insert]');
        if (!b || !this.focus || this.modeOf() !== 'blocks') return;
        e.stopPropagation();
        const text = b.getAttribute('data-insert');
        if (this.focus.editor) {
          this.focus.editor.chain().focus().insertContent(text).run();
          return;
        }
        const box = this.focus.input;
        const start = box.selectionStart ?? box.value.length;
        const end = box.selectionEnd ?? start;
        box.value = box.value.slice(0, start) + text + box.value.slice(end);
        box.dispatchEvent(new Event('input', { bubbles: true }));
        box.focus();
        box.setSelectionRange(start + text.length, start + text.length);
      },
      true,
    );
  }

  modeOf() {
    const checked = this.form.querySelector('input[name=editor_mode]:checked');
    return checked ? checked.value : 'blocks';
  }

  setUpPreview() {
    const area = this.form.querySelector('.block-preview');
    if (!area) return;
    this.who = area.querySelector('[data-preview-who]');
    this.checks = area.querySelector('[data-checks]');
    this.frame = area.querySelector('iframe');
    const csrf = area.querySelector('[data-preview-csrf]').value;
    this.csrf = csrf;
    const field = (name) => el('input', { type: 'hidden', name });
    this.previewForm = el(
      'form',
      {
        method: 'post',
        action: '/console/campaigns/blocks/preview.html',
        target: 'block-preview',
        hidden: true,
      },
      [field('_csrf'), field('content_blocks'), field('subscriber')],
    );
    this.previewForm.elements._csrf.value = csrf;
    document.body.append(this.previewForm);
    for (const b of area.querySelectorAll('[data-width]'))
      b.addEventListener('click', () => {
        for (const o of area.querySelectorAll('[data-width]'))
          o.setAttribute('aria-pressed', String(o === b));
        this.frame.classList.toggle('preview-phone', b.dataset.width === 'phone');
        this.frame.classList.toggle('preview-desktop', b.dataset.width !== 'phone');
      });
    area.querySelector('[data-preview-refresh]').addEventListener('click', () => this.preview());
    this.who.addEventListener('change', () => this.preview());
    this.preview();
  }

  schedulePreview() {
    clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(() => this.preview(), 600);
  }

  preview() {
    if (!this.previewForm) return;
    this.previewForm.elements.content_blocks.value = this.store.value;
    this.previewForm.elements.subscriber.value = this.who.value;
    this.previewForm.submit();
    const data = new URLSearchParams({ content_blocks: this.store.value, subscriber: this.who.value });
    fetch('/console/campaigns/blocks/check', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf-token': this.csrf },
      body: data.toString(),
      credentials: 'same-origin',
    })
      .then((res) => res.json())
      .then((answer) => {
        const items = answer.problem ? [answer.problem] : answer.warnings;
        this.checks.replaceChildren(
          ...(items.length ? items : ['No problems found.']).map((w) =>
            el('li', { class: items.length ? 'check-warning' : 'check-ok', text: w }),
          ),
        );
      });
  }
}

function setUp() {
  const root = document.querySelector('[data-block-editor]');
  if (!root) return;
  const form = root.closest('form');
  new BlockEditor(root, form.elements.content_blocks, form).mount();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
else setUp();
