/** The console's stylesheet and script, read once at start and served from `/console/assets/` with a content hash in the URL. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { packageRoot } from '../config/package-root.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { EDITOR_BUILD, EDITOR_BUNDLE, EDITOR_SOURCE } from './editor-build.js';

interface Asset {
  body: Buffer;
  type: string;
  hash: string;
}

/** A file of an installed package, found from the package root (the command also runs bundled from dist/). */
function fromPackage(specifier: string): string {
  return createRequire(path.join(packageRoot(), 'package.json')).resolve(specifier);
}

function load(
  name: string,
  type: string,
  file = path.join(packageRoot(), 'src', 'console', 'assets', name),
): Asset {
  const body = readFileSync(file);
  return { body, type, hash: createHash('sha256').update(body).digest('hex').slice(0, 12) };
}

/** Where the block editor's source is (its entry and the modules beside it), and where `bin/build.js` writes its bundle. */
const EDITOR_SOURCE_FILE = path.join(packageRoot(), EDITOR_SOURCE);
const EDITOR_DIR = path.dirname(EDITOR_SOURCE_FILE);
const EDITOR_BUNDLE_FILE = path.join(packageRoot(), EDITOR_BUNDLE);

/**
 * The block editor (Tiptap and the editor's own code) as one browser script: the bundle `bin/build.js` wrote, or, when
 * running from sources newer than any build, bundled now with the same options.
 */
function bundledEditor(): Asset {
  const built = statSync(EDITOR_BUNDLE_FILE, { throwIfNoEntry: false });
  const newest = Math.max(...readdirSync(EDITOR_DIR).map((f) => statSync(path.join(EDITOR_DIR, f)).mtimeMs));
  if (built && built.mtimeMs >= newest)
    return load('block-editor.js', 'text/javascript; charset=utf-8', EDITOR_BUNDLE_FILE);
  const require = createRequire(import.meta.url);
  const esbuild = require('esbuild') as typeof import('esbuild');
  const out = esbuild.buildSync({ ...EDITOR_BUILD, entryPoints: [EDITOR_SOURCE_FILE], write: false });
  const body = Buffer.from(out.outputFiles[0]!.contents);
  return {
    body,
    type: 'text/javascript; charset=utf-8',
    hash: createHash('sha256').update(body).digest('hex').slice(0, 12),
  };
}

const ASSETS: Record<string, Asset> = {
  'block-editor.js': bundledEditor(),
  'console.css': load('console.css', 'text/css; charset=utf-8'),
  'console.js': load('console.js', 'text/javascript; charset=utf-8'),
  'forms.css': load('forms.css', 'text/css; charset=utf-8'),
  'forms.js': load('forms.js', 'text/javascript; charset=utf-8'),
  'progress.js': load('progress.js', 'text/javascript; charset=utf-8'),
  'charts.js': load('charts.js', 'text/javascript; charset=utf-8'),
  'template-preview.js': load('template-preview.js', 'text/javascript; charset=utf-8'),
  'compose.js': load('compose.js', 'text/javascript; charset=utf-8'),
  'unsaved.js': load('unsaved.js', 'text/javascript; charset=utf-8'),
  // The chart library, served from the installation's node_modules (never a CDN).
  'uplot.js': load('uplot.js', 'text/javascript; charset=utf-8', fromPackage('uplot/dist/uPlot.iife.min.js')),
  'uplot.css': load('uplot.css', 'text/css; charset=utf-8', fromPackage('uplot/dist/uPlot.min.css')),
};

/** The script that asks before leaving an editor (a `form data-unsaved`) with unsaved changes. */
export function unsavedChangesScript(): SafeHtml {
  return html`<script src="${assetUrl('unsaved.js')}" defer></script>`;
}

/** The URL of an asset, with its content hash so browsers may keep it for a long time. */
export function assetUrl(name: keyof typeof ASSETS & string): string {
  return `/console/assets/${name}?v=${ASSETS[name]!.hash}`;
}

/** Registers `GET /console/assets/:name`. */
export function assetRoutes(app: FastifyInstance): void {
  app.get<{ Params: { name: string } }>(
    '/console/assets/:name',
    { schema: { hide: true } },
    async (req, reply) => {
      const asset = ASSETS[req.params.name];
      if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('not found');
      return reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .type(asset.type)
        .send(asset.body);
    },
  );
}
