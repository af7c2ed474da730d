/** Help text conventions of the `sealpost` command: the version, and required options marked in every `--help`. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

/**
 * The commit this installation was built from: the `COMMIT` file an image build writes (BUILD_COMMIT), else the git
 * checkout's HEAD, else `unknown`.
 */
export function buildCommit(): string {
  const file = path.join(packageRoot(), 'COMMIT');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim() || 'unknown';
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: packageRoot(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
    }).trim();
  } catch {
    return 'unknown';
  }
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
