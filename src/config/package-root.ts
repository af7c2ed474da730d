/** Where the installation's own files are: found from the package root, the same for the sources and the build in dist/. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The folder holding Sealpost's package.json. Modules do not resolve files relative to themselves, because the
 * command also runs as one bundled file in dist/ (see bin/build.js), where their relative places differ.
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return (root = dir);
}
