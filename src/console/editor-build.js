// How the console's block editor (its code with Tiptap and ProseMirror) is bundled into one browser script, served
// under the console's strict CSP. Plain JavaScript, so that bin/build.js, which writes the bundle before anything is
// compiled, and src/console/assets.ts, which bundles the sources itself when they are newer than the build, share it.

/** The editor's source, from the package root. */
export const EDITOR_SOURCE = 'src/console/editor/block-editor.js';

/** The bundle bin/build.js writes, from the package root. */
export const EDITOR_BUNDLE = 'dist/block-editor.js';

/** The esbuild options of the bundle. */
export const EDITOR_BUILD = Object.freeze({
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
  logLevel: 'error',
});
