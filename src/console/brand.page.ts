/**
 * The brand and the image library, under Settings. `/console/settings/brand`: the display name, colour, logo and
 * postal address that the public pages and system emails show. `/console/settings/images`: upload, list, copy the URL
 * of, and delete the account's images; `images.json` lists them for an editor's image picker. The same services as
 * the API (`/settings`, `/images`).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { brandOf, brandSettingsOf, changeBrand } from '../accounts/brand.service.ts';
import { deleteImage, imagesOf, uploadImage, type ImageView } from '../accounts/images.service.ts';
import { AppError } from '../errors/app-error.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { setFlash } from '../users/sessions.service.ts';
import { csrfField } from './layout.ts';
import {
  checkFields,
  consoleAction,
  consolePage,
  guard,
  type ConsoleContext,
  type FormFields,
} from './page.ts';
import { Form, Text } from './action.schemas.ts';

const BRAND = '/console/settings/brand';
const IMAGES = '/console/settings/images';

/** The image's path on this server (the console's policy loads images from itself only). */
const localPath = (url: string) => new URL(url).pathname;

const kb = (n: number) => `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KB`;

/** Registers the brand page, the image library and their actions. */
export function brandPages(app: FastifyInstance, ctx: AppContext): void {
  brandPage(app, ctx);
  imagesPage(app, ctx);
  imageUpload(app, ctx);
  consoleAction(app, ctx, {
    path: `${IMAGES}/:id/delete`,
    permission: 'edit_content',
    body: Form({}),
    back: () => IMAGES,
    handle: async (c) => {
      await deleteImage(c.ctx, c.account.customer_id, c.params.id!, c.by);
      return { redirect: IMAGES, flash: 'Image deleted.' };
    },
  });
  consoleAction(app, ctx, {
    path: BRAND,
    permission: 'manage_settings',
    body: Form({ name: Text(100), colour: Text(16), logo: Text(64), postal_address: Text(500) }),
    back: () => BRAND,
    handle: async (c) => {
      await changeBrand(
        c.ctx,
        c.account.customer_id,
        {
          name: c.form.name ?? null,
          colour: c.form.colour ?? null,
          logoImageId: c.form.logo ?? null,
          postalAddress: c.form.postal_address ?? null,
        },
        c.by,
      );
      return { redirect: BRAND, flash: 'Brand saved. Public pages and system emails show it from now on.' };
    },
  });
}

function logoChoice(images: ImageView[], current: string | null, disabled: boolean): SafeHtml {
  return html`<fieldset class="logo-choice"${disabled ? html` disabled` : ''}>
    <legend>Logo</legend>
    <label class="check"><input type="radio" name="logo" value=""${current ? '' : html` checked`} /> No logo</label>
    ${images.map(
      (i) =>
        html`<label class="check logo-option"
          ><input type="radio" name="logo" value="${i.id}"${i.id === current ? html` checked` : ''} /><img
            src="${localPath(i.url)}"
            alt=""
            class="thumb"
          />
          ${i.name}</label
        >`,
    )}
    <p class="muted">Upload the logo in the <a href="${IMAGES}">image library</a> first, then choose it here.</p>
  </fieldset>`;
}

function brandPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: BRAND,
    permission: 'read',
    title: 'Brand',
    render: async (c) => {
      const [set, brand, images] = await Promise.all([
        brandSettingsOf(c.ctx, c.account.customer_id),
        brandOf(c.ctx, c.account.customer_id),
        imagesOf(c.ctx, c.account.customer_id),
      ]);
      const off = !c.can('manage_settings') || c.viewingOther;
      return html`<div class="card">
        <p class="muted">
          Hosted forms, the unsubscribe, preference and confirmation pages, secure messages and system emails show this
          brand. Text on the brand colour is black or white, whichever reads better.
        </p>
        <form method="post" action="${BRAND}">
          ${csrfField(c.csrfToken)}
          <div class="field">
            <label for="name">Display name</label>
            <input id="name" name="name" maxlength="100" value="${set.name ?? ''}" placeholder="${brand.name}"${off ? html` disabled` : ''} />
          </div>
          <div class="field">
            <label for="colour">Brand colour</label>
            <input id="colour" name="colour" type="color" value="${brand.colour}"${off ? html` disabled` : ''} />
          </div>
          ${logoChoice(images, set.logoImageId, off)}
          <div class="field">
            <label for="postal_address">Postal address</label>
            <textarea id="postal_address" name="postal_address" rows="3" maxlength="500"${off ? html` disabled` : ''}>${set.postalAddress ?? ''}</textarea>
          </div>
          ${off ? '' : html`<button type="submit" class="button">Save brand</button>`}
        </form>
      </div>`;
    },
  });
}

function imageRow(c: ConsoleContext, i: ImageView): SafeHtml {
  return html`<tr>
    <td data-label="Image"><img src="${localPath(i.url)}" alt="" class="thumb" /></td>
    <td data-label="Name">${i.name}<br /><span class="muted">${i.width}×${i.height}, ${kb(i.size)}</span></td>
    <td data-label="URL">
      <label class="sr-only" for="url-${i.id}">URL of ${i.name}</label>
      <input id="url-${i.id}" class="mono" readonly value="${i.url}" />
    </td>
    ${
      c.can('edit_content') && !c.viewingOther
        ? html`<td data-label="Change">
            <form method="post" action="${IMAGES}/${i.id}/delete" class="inline">
              ${csrfField(c.csrfToken)}
              <button type="submit" class="secondary" aria-label="Delete ${i.name}">Delete</button>
            </form>
          </td>`
        : ''
    }
  </tr>`;
}

function imagesPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: IMAGES,
    permission: 'read',
    title: 'Image library',
    render: async (c) => {
      const images = await imagesOf(c.ctx, c.account.customer_id);
      const upload =
        c.can('edit_content') && !c.viewingOther
          ? html`<div class="card">
              <h2>Upload an image</h2>
              <p class="muted">
                PNG, JPEG, GIF or WebP, up to ${Math.floor(c.ctx.config.imageMaxBytes / 1048576)} MB. Wider images are
                resized to 1200 pixels; camera and location data are removed.
              </p>
              <form method="post" action="${IMAGES}" enctype="multipart/form-data">
                ${csrfField(c.csrfToken)}
                <div class="field">
                  <label for="file">Image file</label>
                  <input id="file" name="file" type="file" accept="image/png,image/jpeg,image/gif,image/webp" required />
                </div>
                <button type="submit" class="button">Upload</button>
              </form>
            </div>`
          : '';
      return html`${upload}
        <div class="card">
          <h2>Images</h2>
          ${
            images.length === 0
              ? html`<p>No images yet.</p>`
              : html`<div class="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Image</th>
                        <th scope="col">Name</th>
                        <th scope="col">URL</th>
                        ${c.can('edit_content') && !c.viewingOther ? html`<th scope="col">Change</th>` : ''}
                      </tr>
                    </thead>
                    <tbody>
                      ${images.map((i) => imageRow(c, i))}
                    </tbody>
                  </table>
                </div>`
          }
        </div>`;
    },
  });
  app.get(`${IMAGES}.json`, { schema: { hide: true } }, async (req, reply) => {
    const c = await guard(ctx, req, reply, 'read');
    if (!c) return reply;
    const images = await imagesOf(ctx, c.account.customer_id);
    return reply.header('cache-control', 'no-store').send({ images });
  });
}

/**
 * The upload: multipart, one file; a refused image comes back as an error notice on the library page. The block
 * editor's picker asks for JSON (`accept: application/json`) and is answered `{ image }` or `{ problem }` instead.
 */
function imageUpload(app: FastifyInstance, ctx: AppContext): void {
  app.post(IMAGES, { schema: { hide: true } }, async (req, reply) => {
    const json = (req.headers.accept ?? '').startsWith('application/json');
    if (!req.isMultipart()) throw new AppError('request.invalid', 'send the image as multipart/form-data');
    const fields: FormFields = {};
    for await (const part of req.parts({ limits: { fileSize: ctx.config.imageMaxBytes + 1, files: 1 } })) {
      if (part.type === 'field') {
        if (part.value !== '') fields[part.fieldname] = String(part.value);
        continue;
      }
      req.body = fields;
      const c = await guard(ctx, req, reply, 'edit_content');
      if (!c) return reply;
      checkFields(req, Form({}), fields);
      // Over the size limit, reading the part fails: the image is refused as too large.
      const data = await part.toBuffer().catch(() => undefined);
      try {
        if (!data)
          throw new AppError(
            'image.too_large',
            `an image may have at most ${ctx.config.imageMaxBytes} bytes`,
          );
        const image = await uploadImage(ctx, c.account.customer_id, { name: part.filename, data }, c.by);
        if (json) return reply.header('cache-control', 'no-store').send({ image });
        await setFlash(ctx.database.db, c.session.id, {
          kind: 'success',
          text: `Uploaded ${part.filename}.`,
        });
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        if (json) return reply.code(err.status).send({ problem: err.message });
        await setFlash(ctx.database.db, c.session.id, { kind: 'error', text: err.message });
      }
      return reply.code(303).redirect(IMAGES, 303);
    }
    throw new AppError('image.invalid', 'choose an image file to upload');
  });
}
