// The image block's picker: the account's image library (`/console/settings/images.json`) as a grid of thumbnails to
// choose from, and an upload that adds a new image to the library and chooses it. Choosing fills the image URL; the
// editor then asks for the alt text.
import { el, nextId } from './dom.js';

const LIBRARY = '/console/settings/images';

/** The image's path on this server: the console's policy loads images from itself only. */
const localPath = (url) => new URL(url).pathname;

/**
 * A "Choose from the image library" button and the panel it opens for the image block `name`. `choose(image)` runs
 * with the image the user picked or uploaded (`{ url, name, width }`).
 */
export function imagePicker(name, csrf, choose) {
  const panelId = nextId();
  const open = el('button', { type: 'button', 'aria-expanded': 'false', 'aria-controls': panelId });
  open.textContent = `Choose from the image library`;
  open.setAttribute('aria-label', `${name}: choose from the image library`);
  const status = el('p', { class: 'hint', role: 'status' });
  const grid = el('ul', { class: 'picker-grid', 'aria-label': `Images to use in ${name}` });
  const fileId = nextId();
  const file = el('input', {
    id: fileId,
    type: 'file',
    accept: 'image/png,image/jpeg,image/gif,image/webp',
  });
  const problem = el('p', { class: 'error-text', role: 'alert' });
  const panel = el(
    'div',
    { class: 'image-picker', id: panelId, role: 'group', 'aria-label': 'Image library', hidden: true },
    [
      status,
      grid,
      el('div', { class: 'field' }, [
        el('label', { for: fileId, text: `Upload a new image for ${name}` }),
        file,
      ]),
      problem,
      el('p', {}, [
        el('a', { href: LIBRARY, target: '_blank', rel: 'noopener', text: 'Open the image library' }),
      ]),
    ],
  );

  const show = (images) => {
    status.textContent = images.length
      ? 'Choose an image, or upload a new one.'
      : 'No images in the library yet: upload one.';
    grid.replaceChildren(
      ...images.map((image) => {
        const b = el('button', { type: 'button', class: 'picker-image', 'aria-label': `Use ${image.name}` }, [
          el('img', { src: localPath(image.url), alt: '', loading: 'lazy' }),
          el('span', { text: image.name }),
        ]);
        b.addEventListener('click', () => choose(image));
        return el('li', {}, [b]);
      }),
    );
  };
  const load = () => {
    status.textContent = 'Loading the image library…';
    return fetch(`${LIBRARY}.json`, { credentials: 'same-origin' })
      .then((res) => res.json())
      .then((answer) => show(answer.images))
      .catch(() => {
        status.textContent = 'The image library could not be loaded.';
      });
  };
  open.addEventListener('click', () => {
    const opening = panel.hidden;
    panel.hidden = !opening;
    open.setAttribute('aria-expanded', String(opening));
    if (opening) load();
  });
  file.addEventListener('change', () => {
    if (!file.files.length) return;
    const data = new window.FormData();
    data.append('_csrf', csrf);
    data.append('file', file.files[0]);
    problem.textContent = '';
    status.textContent = 'Uploading…';
    fetch(LIBRARY, {
      method: 'POST',
      body: data,
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    })
      .then((res) => res.json())
      .then((answer) => {
        if (answer.image) choose(answer.image);
        else {
          problem.textContent = answer.problem || 'The image could not be uploaded.';
          status.textContent = '';
        }
      })
      .catch(() => {
        problem.textContent = 'The image could not be uploaded.';
        status.textContent = '';
      });
  });
  return el('div', { class: 'picker' }, [open, panel]);
}
