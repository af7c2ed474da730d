/** Types of editor-build.js: how the console's block editor is bundled. */
import type { BuildOptions } from 'esbuild';

/** The editor's source, from the package root. */
export declare const EDITOR_SOURCE: string;
/** The bundle bin/build.js writes, from the package root. */
export declare const EDITOR_BUNDLE: string;
/** The esbuild options of the bundle. */
export declare const EDITOR_BUILD: Readonly<BuildOptions>;
