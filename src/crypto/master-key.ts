/** Finds the master key: from configuration, or (embedded installs only) generated once into the data directory. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, type DatabaseTarget } from '../config/load.ts';
import type { Config } from '../config/schema.ts';

/** Decodes a base64 master key, insisting on exactly 32 bytes. */
export function decodeMasterKey(text: string, name: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32)
    throw new ConfigError(`${name} must be 32 bytes encoded as base64 (it decodes to ${key.length} bytes)`);
  return key;
}

/**
 * Returns the master key. With PostgreSQL the key must come from configuration, because every node must share it.
 * With the embedded database a missing key is generated into `<dataDir>/master.key` with a loud warning.
 */
export function resolveMasterKey(
  config: Config,
  target: DatabaseTarget,
  log?: Logger,
  opts: { generate?: boolean } = {},
): Buffer {
  if (config.masterKey) return decodeMasterKey(config.masterKey, 'SEALPOST_MASTER_KEY');
  if (target.dialect === 'postgres')
    throw new ConfigError(
      'SEALPOST_MASTER_KEY is required with PostgreSQL (every node must share it); generate one with `openssl rand -base64 32`',
    );
  const file = path.resolve(config.dataDir, 'master.key');
  if (existsSync(file)) return decodeMasterKey(readFileSync(file, 'utf8'), file);
  // Backups and restores work on data sealed already: a key made now could open none of it.
  if (opts.generate === false)
    throw new ConfigError(
      `no master key: put the key the data was sealed with in ${file} or SEALPOST_MASTER_KEY first`,
    );
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, randomBytes(32).toString('base64') + '\n', {
    mode: 0o600,
    flag: 'wx',
  });
  log?.warn(
    { file },
    `generated a new master encryption key at ${file}. BACK IT UP: without it, stored message bodies, attachments and form submissions cannot be decrypted.`,
  );
  return decodeMasterKey(readFileSync(file, 'utf8'), file);
}
