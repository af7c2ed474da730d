/** Help text conventions of the `sealpost` command: the version, and required options marked in every `--help`. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command, Help, Option } from 'commander';
import { packageRoot } from '../config/package-root.ts';

/** The version in package.json. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** Marks options declared with requiredOption as "(required)" in the help of `cmd` and every command below it. */
export function markRequiredOptions(cmd: Command): void {
  cmd.configureHelp({
    optionDescription(this: Help, option: Option): string {
      const base = Object.getPrototypeOf(this).optionDescription.call(this, option) as string;
      return option.mandatory ? `${base} (required)` : base;
    },
  });
  for (const sub of cmd.commands) markRequiredOptions(sub);
}
