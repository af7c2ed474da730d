// The block editor of the compose and template forms, bundled by bin/build.js into one script served as
// /console/assets/block-editor.js. It edits the block document kept in the form's `content_blocks` field: blocks are
// added, moved (buttons or drag), deleted, with undo and redo; the blocks inside each of two columns are added, moved
// and deleted the same way. Rich text is edited with Tiptap (rich.js); an image is chosen from or uploaded to the
// image library (image-picker.js), then its alt text is asked for. The compose form's preview is preview.js.
import { el, input } from './dom.js';
import { COLUMN_KINDS, KINDS, LABEL, fresh } from './kinds.js';
import { richText } from './rich.js';
import { imagePicker } from './image-picker.js';
import { BlockPreview } from './preview.js';

/** A menu of kinds and an "Add block" button that adds the chosen kind with `add(kind)`. */
function adder(kinds, label, buttonLabel, add) {
  const menu = el(
    'select',
    { 'aria-label': label },
    kinds.map(([k, l]) => el('option', { value: k, text: l })),
  );
  const button = el('button', { type: 'button', text: 'Add block', 'aria-label': buttonLabel });
  button.addEventListener('click', () => add(menu.value));
  return [menu, button];
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
    this.csrf = form.elements._csrf ? form.elements._csrf.value : '';
    this.preview = new BlockPreview(form, store);
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
    this.preview.schedule();
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
    this.preview.schedule();
  }

  mount() {
    const kinds = this.root.hasAttribute('data-no-footer') ? KINDS.filter(([k]) => k !== 'footer') : KINDS;
    const [menu, addButton] = adder(kinds, 'Block to add', 'Add block', (kind) => {
      this.doc.blocks.push(fresh(kind));
      this.changed(true);
    });
    menu.id = 'be-add';
    this.undoButton = el('button', { type: 'button', text: 'Undo', disabled: true });
    this.redoButton = el('button', { type: 'button', text: 'Redo', disabled: true });
    this.undoButton.addEventListener('click', () => this.step(this.past, this.future));
    this.redoButton.addEventListener('click', () => this.step(this.future, this.past));
    this.list = el('ol', { class: 'block-list', 'aria-label': 'Blocks of the email' });
    this.root.append(
      el('div', { class: 'block-toolbar' }, [menu, addButton, this.undoButton, this.redoButton]),
      this.list,
    );
    this.root.addEventListener('focusin', (e) => {
      if (e.target.matches('input[type=text], input:not([type]), textarea')) this.focus = { input: e.target };
    });
    this.hookFieldMenu();
    this.draw();
    this.preview.mount();
  }

  updateHistoryButtons() {
    this.undoButton.disabled = this.past.length === 0 && this.saved === this.store.value;
    this.redoButton.disabled = this.future.length === 0;
  }

  draw() {
    for (const e of this.editors) e.destroy();
    this.editors = [];
    this.focus = null;
    const blocks = this.doc.blocks;
    this.list.replaceChildren(
      ...blocks.map((b, i) => this.card(blocks, i, `${LABEL[b.type] || b.type} ${i + 1}`, true)),
    );
  }

  /** The card of `blocks[i]`: its name, buttons to move and delete it, and its fields. */
  card(blocks, i, name, draggable) {
    const move = (to) => {
      const [b] = blocks.splice(i, 1);
      blocks.splice(to, 0, b);
      this.changed(true);
    };
    const button = (text, label, action, disabled) => {
      const b = el('button', { type: 'button', text, 'aria-label': label, disabled });
      b.addEventListener('click', action);
      return b;
    };
    const card = el('li', { class: 'block-card', draggable: draggable ? 'true' : undefined }, [
      el('div', { class: 'block-head' }, [
        draggable ? el('span', { class: 'drag-handle', 'aria-hidden': 'true', text: '⠿' }) : '',
        el('strong', { text: name }),
        button('↑', `Move ${name} up`, () => move(i - 1), i === 0),
        button('↓', `Move ${name} down`, () => move(i + 1), i === blocks.length - 1),
        button('Delete', `Delete ${name}`, () => {
          blocks.splice(i, 1);
          this.changed(true);
        }),
      ]),
      this.body(blocks[i], name),
    ]);
    if (draggable) this.dragging(card, i);
    return card;
  }

  dragging(card, i) {
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
  }

  body(block, name) {
    const on = (s) => this.changed(s);
    const body = (children) => el('div', { class: 'block-body' }, children);
    switch (block.type) {
      case 'heading':
        return body([input(`${name}: text`, block, 'text', on)]);
      case 'paragraph':
        return body([this.rich(block, `${name}: text`)]);
      case 'columns':
        return el('div', { class: 'block-body block-columns' }, [
          this.column(block.columns[0], `${name}, left`),
          this.column(block.columns[1], `${name}, right`),
        ]);
      case 'image':
        return this.imageBody(block, name);
      case 'button':
        return body([
          input(`${name}: label`, block, 'text', on),
          input(`${name}: link`, block, 'href', on, { type: 'url' }),
        ]);
      case 'spacer':
        return body([input(`${name}: height in pixels`, block, 'height', on, { type: 'number' })]);
      case 'markdown':
        return body([input(`${name}: Markdown`, block, 'markdown', on, { multiline: true })]);
      case 'footer':
        return this.footerBody(block, name);
      default:
        return body([]);
    }
  }

  /** One column of a two-column block: its own list of blocks, and a menu to add one. */
  column(blocks, prefix) {
    const list = el(
      'ol',
      { class: 'block-list column-list', 'aria-label': `Blocks of ${prefix} column` },
      blocks.map((b, i) => this.card(blocks, i, `${prefix}: ${LABEL[b.type] || b.type} ${i + 1}`, false)),
    );
    const add = adder(
      COLUMN_KINDS,
      `Block to add to ${prefix} column`,
      `Add block to ${prefix} column`,
      (kind) => {
        blocks.push(fresh(kind));
        this.changed(true);
      },
    );
    return el('div', { class: 'column' }, [list, el('div', { class: 'block-toolbar' }, add)]);
  }

  imageBody(block, name) {
    const on = (s) => this.changed(s);
    const alt = input(`${name}: alt text`, block, 'alt', on);
    const hintId = `${alt.querySelector('input').id}-hint`;
    alt.querySelector('input').setAttribute('aria-describedby', hintId);
    alt.querySelector('input').dataset.alt = name;
    alt.append(
      el('p', {
        class: 'hint',
        id: hintId,
        text: 'Say what the image shows, for readers who cannot see it.',
      }),
    );
    const chosen = (image) => {
      block.src = image.url;
      this.changed(true);
      const box = this.root.querySelector(`input[data-alt="${window.CSS.escape(name)}"]`);
      if (box) box.focus();
    };
    return el('div', { class: 'block-body' }, [
      imagePicker(name, this.csrf, chosen),
      input(`${name}: image URL`, block, 'src', on, { type: 'url' }),
      alt,
      input(`${name}: link (optional)`, block, 'link', on, { type: 'url', optional: true }),
    ]);
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
    const { node, editor } = richText(
      target,
      label,
      () => this.changed(false),
      (e) => {
        this.focus = { editor: e };
      },
    );
    this.editors.push(editor);
    return node;
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
}

function setUp() {
  const root = document.querySelector('[data-block-editor]');
  if (!root) return;
  const form = root.closest('form');
  new BlockEditor(root, form.elements.content_blocks, form).mount();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
else setUp();
