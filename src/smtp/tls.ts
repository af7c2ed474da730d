/** The SMTP listeners' certificate: from configuration, or for an embedded install a self-signed pair generated once into the data directory. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type SelfSigned from 'selfsigned';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.ts';
import { ConfigError } from '../config/load.ts';
import { onFirstUse } from '../on-first-use.ts';

/** Needed only the first time, to generate the pair; later starts read it from the data directory. */
const selfsigned = onFirstUse<typeof SelfSigned>('selfsigned');

/** A PEM key and certificate. */
export interface TlsPair {
  key: string;
  cert: string;
}

/** Reads the configured pair, or generates (once) and reads a self-signed one under `<dataDir>/smtp-tls/`. */
export function smtpTlsPair(config: Config, log: Logger): TlsPair {
  if (config.smtpTlsCertFile || config.smtpTlsKeyFile) {
    if (!config.smtpTlsCertFile || !config.smtpTlsKeyFile)
      throw new ConfigError(
        'SEALPOST_SMTP_TLS_CERT_FILE and SEALPOST_SMTP_TLS_KEY_FILE must be given together',
      );
    const read = (file: string, key: string) => {
      try {
        return readFileSync(file, 'utf8');
      } catch (err) {
        throw new ConfigError(`${key}: cannot read ${file}: ${(err as Error).message}`);
      }
    };
    return {
      cert: read(config.smtpTlsCertFile, 'SEALPOST_SMTP_TLS_CERT_FILE'),
      key: read(config.smtpTlsKeyFile, 'SEALPOST_SMTP_TLS_KEY_FILE'),
    };
  }
  const dir = path.resolve(config.dataDir, 'smtp-tls');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const host = config.heloName || os.hostname();
    const pems = selfsigned().generate([{ name: 'commonName', value: host }], {
      keySize: 2048,
      days: 825,
      algorithm: 'sha256',
    });
    writeFileSync(keyFile, pems.private, { mode: 0o600 });
    writeFileSync(certFile, pems.cert);
    log.warn(
      { dir },
      `generated a self-signed certificate for the SMTP listeners (${host}); clients must be told to accept it. Set SEALPOST_SMTP_TLS_CERT_FILE and SEALPOST_SMTP_TLS_KEY_FILE for a real one.`,
    );
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}
