/** The image library under both marketing prefixes: `GET/POST /images`, `GET/DELETE /images/<id>`. */
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed.ts';
import type { AppContext } from '../../context.ts';
import { changeByKey, principalOf } from '../../http/auth.ts';
import { MARKETING_PREFIXES } from '../ids.ts';
import {
  deleteImage,
  imageFromBase64,
  imageOf,
  imagesOf,
  uploadImage,
} from '../../accounts/images.service.ts';
import { MARKETING_ERRORS, marketingSchemaBase } from '../routes-common.ts';
import { Image, ImageParams, ImageUploadBody } from './images.schemas.ts';

const one = { 200: Type.Object({ data: Image }), ...MARKETING_ERRORS, 413: MARKETING_ERRORS[400] };

/** Registers the image library routes. */
export function imageRoutes(app: TypedApp, ctx: AppContext): void {
  for (const prefix of MARKETING_PREFIXES) {
    const common = marketingSchemaBase(prefix);
    app.get(
      `${prefix}/images`,
      {
        schema: {
          ...common,
          summary: "The account's image library, newest first",
          response: { 200: Type.Object({ data: Type.Array(Image) }), ...MARKETING_ERRORS },
        },
      },
      async (req) => ({ data: await imagesOf(ctx, principalOf(req, 'marketing').customerId) }),
    );
    app.post(
      `${prefix}/images`,
      {
        schema: {
          ...common,
          summary: 'Upload an image to the library',
          body: ImageUploadBody,
          response: one,
        },
      },
      async (req) => {
        const p = principalOf(req, 'marketing');
        const upload = { name: req.body.name, data: imageFromBase64(req.body.content) };
        return { data: await uploadImage(ctx, p.customerId, upload, changeByKey(req, p)) };
      },
    );
    app.get(
      `${prefix}/images/:id`,
      { schema: { ...common, summary: 'One image of the library', params: ImageParams, response: one } },
      async (req) => ({ data: await imageOf(ctx, principalOf(req, 'marketing').customerId, req.params.id) }),
    );
    app.delete(
      `${prefix}/images/:id`,
      {
        schema: {
          ...common,
          summary: 'Delete an image (refused while it is the logo)',
          params: ImageParams,
          response: { 200: Type.Object({ detail: Type.String() }), ...MARKETING_ERRORS },
        },
      },
      async (req) => {
        const p = principalOf(req, 'marketing');
        await deleteImage(ctx, p.customerId, req.params.id, changeByKey(req, p));
        return { detail: 'deleted' };
      },
    );
  }
}
