/** The prose documentation the API docs page links: the Markdown files of `docs/`, served as they are. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../http/typed.ts';
import { packageRoot } from '../config/package-root.ts';
import { AppError } from '../errors/app-error.ts';
import { ErrorResponse } from '../mail/error-body.ts';
import { PROSE_DOCS } from './openapi-document.ts';

/** Where the docs page's links point. */
export const GUIDE_BASE = '/docs/guide';

const FILES = new Set(PROSE_DOCS.map(([file]) => file));

/** Registers `GET /docs/guide/:file`. */
export function guideRoutes(app: TypedApp): void {
  app.get(
    `${GUIDE_BASE}/:file`,
    {
      schema: {
        tags: ['operations'],
        summary: 'A page of the prose documentation (Markdown)',
        params: Type.Object({ file: Type.String({ description: 'The page, for example `email.md`' }) }),
        produces: ['text/markdown'],
        response: { 200: Type.String({ description: 'The page, in Markdown' }), 404: ErrorResponse },
      },
    },
    async (req, reply) => {
      if (!FILES.has(req.params.file))
        throw new AppError('not_found', `no documentation page ${req.params.file}`);
      const text = await readFile(path.join(packageRoot(), 'docs', req.params.file), 'utf8').catch(() => {
        throw new AppError('not_found', `the documentation page ${req.params.file} is not installed`);
      });
      return reply.type('text/markdown; charset=utf-8').send(text);
    },
  );
}
