/** SQL for an account's image library. */
import type { Queryable } from '../db/types.ts';
import type { ImagesTable } from '../db/tables/core.ts';

/** An image without its bytes, as listings read it. */
export type ImageRow = Omit<ImagesTable, 'data'>;

const META = [
  'id',
  'customer_id',
  'token',
  'name',
  'content_type',
  'width',
  'height',
  'size',
  'created_at',
] as const;

/** Stores a new image. */
export async function insertImage(db: Queryable, row: ImagesTable): Promise<void> {
  await db.insertInto('images').values(row).execute();
}

/** The account's images, newest first, without their bytes. */
export async function listImages(db: Queryable, customerId: number, limit: number): Promise<ImageRow[]> {
  return db
    .selectFrom('images')
    .select(META)
    .where('customer_id', '=', customerId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** One image of the account, without its bytes. */
export async function findImage(
  db: Queryable,
  customerId: number,
  id: string,
): Promise<ImageRow | undefined> {
  return db
    .selectFrom('images')
    .select(META)
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The bytes and type of the image behind a public token. */
export async function findImageByToken(
  db: Queryable,
  token: string,
): Promise<{ content_type: string; data: Buffer } | undefined> {
  return db
    .selectFrom('images')
    .select(['content_type', 'data'])
    .where('token', '=', token)
    .executeTakeFirst();
}

/** Removes one image of the account; true when there was one. */
export async function deleteImage(db: Queryable, customerId: number, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom('images')
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
