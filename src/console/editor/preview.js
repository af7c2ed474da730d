// The compose form's preview of the block editor: the document posted into a sandboxed frame (the server renders it
// as a test email to the chosen subscriber is), at desktop or phone width, with the content checks as a list.
import { el } from './dom.js';

/** Wires the form's `.block-preview` area, if it has one, to the editor's stored document. */
export class BlockPreview {
  constructor(form, store) {
    this.form = form;
    this.store = store;
    this.timer = null;
    this.asked = 0;
  }

  /** Sets the preview up and shows it; false when the form has no preview area. */
  mount() {
    const area = this.form.querySelector('.block-preview');
    if (!area) return false;
    this.who = area.querySelector('[data-preview-who]');
    this.checks = area.querySelector('[data-checks]');
    this.frame = area.querySelector('iframe');
    this.csrf = area.querySelector('[data-preview-csrf]').value;
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
    this.previewForm.elements._csrf.value = this.csrf;
    document.body.append(this.previewForm);
    for (const b of area.querySelectorAll('[data-width]'))
      b.addEventListener('click', () => {
        for (const o of area.querySelectorAll('[data-width]'))
          o.setAttribute('aria-pressed', String(o === b));
        this.frame.classList.toggle('preview-phone', b.dataset.width === 'phone');
        this.frame.classList.toggle('preview-desktop', b.dataset.width !== 'phone');
      });
    area.querySelector('[data-preview-refresh]').addEventListener('click', () => this.show());
    this.who.addEventListener('change', () => this.show());
    this.show();
    return true;
  }

  /** Shows the preview again shortly (typing is not re-rendered on every key). */
  schedule() {
    if (!this.previewForm) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.show(), 600);
  }

  show() {
    this.previewForm.elements.content_blocks.value = this.store.value;
    this.previewForm.elements.subscriber.value = this.who.value;
    this.previewForm.submit();
    // Checks of an older document may answer after newer ones: only the latest request's answer is shown.
    const asked = ++this.asked;
    const data = new URLSearchParams({ content_blocks: this.store.value, subscriber: this.who.value });
    fetch('/console/campaigns/blocks/check', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf-token': this.csrf },
      body: data.toString(),
      credentials: 'same-origin',
    })
      .then((res) => res.json())
      .then((answer) => {
        if (asked !== this.asked) return;
        const items = answer.problem ? [answer.problem] : answer.warnings;
        this.checks.replaceChildren(
          ...(items.length ? items : ['No problems found.']).map((w) =>
            el('li', { class: items.length ? 'check-warning' : 'check-ok', text: w }),
          ),
        );
      });
  }
}
