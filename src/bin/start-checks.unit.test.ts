/** How a failure of a start becomes one line: a privileged port is not blamed on the data directory. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.ts';
import { explainStartFailure, StartError } from './start-checks.ts';

const config = loadConfig({ SEALPOST_HTTP_PORT: '80', SEALPOST_DATA_DIR: '/srv/sealpost' });
const errno = (fields: Record<string, unknown>) => Object.assign(new Error('refused'), fields);

describe('explainStartFailure', () => {
  it('names the port setting and the capability when a privileged port cannot be bound', () => {
    const err = explainStartFailure(
      errno({ code: 'EACCES', syscall: 'listen', port: 80, address: '0.0.0.0' }),
      config,
    );
    expect(err).toBeInstanceOf(StartError);
    expect((err as Error).message).toBe(
      'port 80 on 0.0.0.0 needs root or CAP_NET_BIND_SERVICE (SEALPOST_HTTP_PORT): choose a port above 1023, or grant the capability',
    );
  });

  it('blames the data directory for a refused file, not a port', () => {
    const err = explainStartFailure(
      errno({ code: 'EACCES', syscall: 'open', path: '/srv/sealpost/x' }),
      config,
    );
    expect((err as Error).message).toContain(
      'the data directory /srv/sealpost is not writable (SEALPOST_DATA_DIR)',
    );
  });
});
