/**
 * The image library of an account: pictures for its emails and its logo. An upload is decoded (never trusted by its
 * name or declared type), must be a PNG, JPEG, GIF or WebP within the byte and pixel limits, and is stored re-encoded
 * in its own format, at most `MAX_WIDTH` pixels wide and without metadata (camera, location). Each image is served
 * publicly at `/img/<token>.<ext>`, the token unguessable, with the type of the decoded image.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type Sharp from 'sharp';
import { record, type ChangeBy } from '../audit/audit.service.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { onFirstUse } from '../on-first-use.ts';
import {
  deleteImage as deleteRow,
  findImage,
  findImageByToken,
  insertImage,
  listImages,
  type ImageRow,
} from './images.repository.ts';
import { findSettings } from './settings.repository.ts';

const sharp = onFirstUse<typeof Sharp>('sharp');

/** The widest image kept: twice the 600-pixel width of an email, for sharp screens. */
export const MAX_WIDTH = 1200;
/** The most pixels an upload may have (a decompression bomb is refused before it is decoded). */
export const MAX_PIXELS = 40_000_000;
/** The most images a listing returns. */
export const LIST_LIMIT = 500;
/** The longest name kept. */
const MAX_NAME = 200;

const TYPES = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' } as const;
type Format = keyof typeof TYPES;
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** An image as the API and the console show it. */
export interface ImageView {
  id: string;
  name: string;
  content_type: string;
  width: number;
  height: number;
  size: number;
  url: string;
  created_at: string;
}

/** The public URL of an image. */
export function imageUrl(ctx: Pick<AppContext, 'publicUrl'>, token: string, contentType: string): string {
  return `${ctx.publicUrl}/img/${token}.${EXTENSIONS[contentType] ?? 'img'}`;
}

function view(ctx: AppContext, row: ImageRow): ImageView {
  return {
    id: row.id,
    name: row.name,
    content_type: row.content_type,
    width: Number(row.width),
    height: Number(row.height),
    size: Number(row.size),
    url: imageUrl(ctx, row.token, row.content_type),
    created_at: new Date(Number(row.created_at)).toISOString(),
  };
}

const invalid = (why: string) => new AppError('image.invalid', why);

/** Decodes, checks and re-encodes an upload; throws `image.invalid` for anything but a usable image. */
export async function prepareImage(
  data: Buffer,
  maxBytes: number,
): Promise<{ data: Buffer; contentType: string; width: number; height: number }> {
  if (data.length === 0) throw invalid('the file is empty');
  if (data.length > maxBytes)
    throw new AppError('image.too_large', `an image may have at most ${maxBytes} bytes`);
  const open = () => sharp()(data, { animated: true, limitInputPixels: MAX_PIXELS, failOn: 'error' });
  let meta: Sharp.Metadata;
  try {
    meta = await open().metadata();
  } catch {
    throw invalid('the file is not an image that can be read');
  }
  const format = meta.format as Format;
  if (!(format in TYPES)) throw invalid('send a PNG, JPEG, GIF or WebP image');
  const height = meta.pageHeight ?? meta.height ?? 0;
  if ((meta.width ?? 0) * height * (meta.pages ?? 1) > MAX_PIXELS)
    throw invalid(`an image may have at most ${MAX_PIXELS} pixels`);
  try {
    const { data: out, info } = await open()
      .rotate()
      .resize({ width: MAX_WIDTH, withoutEnlargement: true })
      .toFormat(format)
      .toBuffer({ resolveWithObject: true });
    const pageHeight = (info as { pageHeight?: number }).pageHeight ?? info.height;
    return { data: out, contentType: TYPES[format], width: info.width, height: pageHeight };
  } catch {
    throw invalid('the image could not be decoded');
  }
}

/** The bytes of a base64-encoded upload (whitespace and missing padding tolerated); `image.invalid` otherwise. */
export function imageFromBase64(content: string): Buffer {
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.replace(/=+$/, '').length % 4 === 1)
    throw invalid('content: not valid base64');
  return Buffer.from(compact, 'base64');
}

/** Cleans an uploaded file's name for display. */
function cleanName(name: string): string {
  const base = name
    .replace(/^.*[\\/]/, '')
    .replace(/\p{Cc}/gu, '')
    .trim();
  return (base || 'image').slice(0, MAX_NAME);
}

/** Adds an image to the account's library; the upload is recorded in the audit trail as made `by`. */
export async function uploadImage(
  ctx: AppContext,
  customerId: number,
  upload: { name: string; data: Buffer },
  by: ChangeBy,
): Promise<ImageView> {
  const image = await prepareImage(upload.data, ctx.config.imageMaxBytes);
  const row = {
    id: randomUUID(),
    customer_id: customerId,
    token: randomBytes(24).toString('base64url'),
    name: cleanName(upload.name),
    content_type: image.contentType,
    width: image.width,
    height: image.height,
    size: image.data.length,
    data: image.data,
    created_at: Date.now(),
  };
  await ctx.database.db.transaction().execute(async (trx) => {
    await insertImage(trx, row);
    await record(trx, {
      accountId: customerId,
      actor: by.actor,
      action: 'image.upload',
      target: `image:${row.id}`,
      ip: by.ip,
      detail: { name: row.name, size: row.size },
    });
  });
  return view(ctx, row);
}

/** The account's images, newest first. */
export async function imagesOf(ctx: AppContext, customerId: number): Promise<ImageView[]> {
  return (await listImages(ctx.database.reader, customerId, LIST_LIMIT)).map((r) => view(ctx, r));
}

/** One image of the account; `image.not_found` when it has none by that id. */
export async function imageOf(ctx: AppContext, customerId: number, id: string): Promise<ImageView> {
  const row = await findImage(ctx.database.db, customerId, id);
  if (!row) throw new AppError('image.not_found', `no image ${id}`);
  return view(ctx, row);
}

/** Deletes an image of the account; refused while it is the account's logo. */
export async function deleteImage(
  ctx: AppContext,
  customerId: number,
  id: string,
  by: ChangeBy,
): Promise<void> {
  await ctx.database.db.transaction().execute(async (trx) => {
    if ((await findSettings(trx, customerId))?.brand_logo_id === id)
      throw new AppError('image.in_use', 'the image is the account logo: choose another logo first');
    if (!(await deleteRow(trx, customerId, id))) throw new AppError('image.not_found', `no image ${id}`);
    await record(trx, {
      accountId: customerId,
      actor: by.actor,
      action: 'image.delete',
      target: `image:${id}`,
      ip: by.ip,
    });
  });
}

/** The bytes and type behind a public image URL's file part (`<token>.<ext>`), or undefined. */
export async function publicImage(
  ctx: AppContext,
  file: string,
): Promise<{ contentType: string; data: Buffer } | undefined> {
  const m = /^([A-Za-z0-9_-]{32})\.(png|jpg|gif|webp)$/.exec(file);
  if (!m) return undefined;
  const row = await findImageByToken(ctx.database.reader, m[1]!);
  if (!row || EXTENSIONS[row.content_type] !== m[2]) return undefined;
  return { contentType: row.content_type, data: Buffer.from(row.data) };
}
