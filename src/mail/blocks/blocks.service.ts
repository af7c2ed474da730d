/**
 * Block documents as the API and the console send them: checked against the schema (the error names the path), stored
 * as JSON text, read back, and rendered into the HTML and text parts a mailing or template keeps.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { AppError } from '../../errors/app-error.ts';
import { BlockDocument } from './blocks.schemas.ts';
import { renderDocument, type RenderedDocument } from './blocks.render.ts';

let compiled: ReturnType<typeof TypeCompiler.Compile<typeof BlockDocument>> | undefined;

/** The document, or `marketing.blocks_invalid` naming the first wrong path under `field`. */
export function checkDocument(value: unknown, field: string): BlockDocument {
  compiled ??= TypeCompiler.Compile(BlockDocument);
  if (compiled.Check(value)) return value;
  const first = [...compiled.Errors(value)].sort((a, b) => b.path.length - a.path.length)[0];
  const at = `${field}${first?.path.replace(/\//g, '.') ?? ''}`;
  const message = first?.message ?? 'is not a block document';
  throw new AppError('marketing.blocks_invalid', `${at}: ${message}`, { details: [{ field: at, message }] });
}

/** The JSON text a document is stored as. */
export const storedDocument = (doc: BlockDocument): string => JSON.stringify(doc);

/** A stored document, or null when there is none. */
export function documentOf(stored: string | null | undefined): BlockDocument | null {
  return stored ? (JSON.parse(stored) as BlockDocument) : null;
}

/** Checks a document and renders it (MJML runs here, once per save). */
export async function renderChecked(
  value: unknown,
  field: string,
): Promise<RenderedDocument & { doc: BlockDocument }> {
  const doc = checkDocument(value, field);
  return { ...(await renderDocument(doc)), doc };
}

/** What a create or change stores after its block document (if any) was rendered. */
export interface WithBlocks<T> {
  input: T;
  /** JSON to store; null to drop the stored document; undefined to leave it. */
  stored: string | null | undefined;
}

/**
 * Replaces a sent block document by the HTML (`htmlKey`) and text (`textKey`, unless sent) it renders to. Sending HTML
 * without a document drops the stored document: it no longer describes the content. Sending both is refused.
 */
export async function expandBlocks<T extends { content_blocks?: unknown }>(
  input: T,
  field: string,
  htmlKey: keyof T & string,
  textKey?: keyof T & string,
): Promise<WithBlocks<T>> {
  const value = input.content_blocks;
  if (value === undefined || value === null)
    return { input, stored: value === null || input[htmlKey] !== undefined ? null : undefined };
  if (input[htmlKey] !== undefined)
    throw new AppError(
      'marketing.blocks_invalid',
      `send ${field}.${htmlKey} or ${field}.content_blocks, not both`,
      {
        details: [{ field: `${field}.content_blocks`, message: `cannot be sent with ${htmlKey}` }],
      },
    );
  const out = await renderChecked(value, `${field}.content_blocks`);
  const next = { ...input, [htmlKey]: out.html };
  if (textKey && input[textKey] === undefined) Object.assign(next, { [textKey]: out.text });
  return { input: next, stored: storedDocument(out.doc) };
}
