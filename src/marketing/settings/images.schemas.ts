/** Request and response schemas of the image library routes. */
import { Type } from '@sinclair/typebox';

/** One image of the library. */
export const Image = Type.Object({
  id: Type.String({ description: 'The image id' }),
  name: Type.String({ description: 'The uploaded file name' }),
  content_type: Type.String({
    description: 'The type of the stored image: image/png, image/jpeg, image/gif or image/webp',
  }),
  width: Type.Integer({ description: 'Width in pixels after resizing (at most 1200)' }),
  height: Type.Integer({ description: 'Height in pixels after resizing' }),
  size: Type.Integer({ description: 'Bytes stored' }),
  url: Type.String({
    description: 'The public URL to put in an email or page; unguessable, cacheable for a year',
  }),
  created_at: Type.String({ description: 'When it was uploaded (ISO 8601)' }),
});

/** `POST /images`: the file, base64-encoded. */
export const ImageUploadBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'The file name to show' }),
    content: Type.String({
      minLength: 1,
      description:
        'The image file, base64-encoded (PNG, JPEG, GIF or WebP; line breaks and missing padding allowed)',
    }),
  },
  {
    examples: [
      {
        name: 'logo.png',
        content:
          'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      },
    ],
  },
);

/** An image named by its id. */
export const ImageParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
