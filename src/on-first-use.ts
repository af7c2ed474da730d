/**
 * Packages loaded the first time they are needed instead of when the process starts (docs/decisions.md, "Start-up"):
 * an idle `sealpost start` should not pay for a PDF library, an HTML sanitizer or a template engine that it may never
 * use. `require` keeps the callers synchronous; the packages given here are CommonJS.
 */
import { createRequire } from 'node:module';
import type HandlebarsModule from 'handlebars';

const load = createRequire(import.meta.url);

/** A function that returns the package `name`, required on its first call and kept. */
export function onFirstUse<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(name) as T);
}

/**
 * Handlebars, from its single-file build: the package's main entry loads the compiler as dozens of modules and the
 * source-map library (about 60 ms and 9 MB at first use, on the event loop), the single file about half the time and
 * a quarter of the memory, with the same compiler and runtime.
 */
export const handlebars = onFirstUse<typeof HandlebarsModule>('handlebars/dist/handlebars.js');
