// Keeps the better-sqlite3 addon this machine compiled in npm's cache, at the place prebuild-install looks before it
// downloads (its release host is out of reach here), so the next clean install unpacks it instead of compiling.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.resolve('package.json'));
const dir = path.resolve('node_modules/better-sqlite3');
const addon = path.join(dir, 'build/Release/better_sqlite3.node');
const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
const util = require('prebuild-install/util');
const opts = { ...require('prebuild-install/rc')(pkg), pkg };
const cached = util.cachedPrebuild(util.getDownloadUrl(opts));
if (!existsSync(cached) && existsSync(addon)) {
  mkdirSync(path.dirname(cached), { recursive: true });
  execFileSync('tar', ['-czf', `${cached}.tmp`, '-C', dir, 'build/Release/better_sqlite3.node']);
  renameSync(`${cached}.tmp`, cached);
  console.log(`kept the compiled better-sqlite3 addon in ${cached}`);
}
