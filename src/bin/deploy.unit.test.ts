/**
 * The packaging files cannot be built or run here, so this test reads them and checks what matters: the container runs
 * as a non-root user with its data under a volume and a health check on /healthz, the builder stage compiles the SQLite
 * driver, the compose file splits the roles over PostgreSQL, the systemd unit is hardened, and every SEALPOST_ name they
 * (and docs/deploy.md) use is a configuration key.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CONFIG_FILE_ENV, KEYS } from '../config/schema.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(ROOT + file, 'utf8');
const KNOWN_ENV = new Set<string>([...Object.values(KEYS).map((k) => k.env), CONFIG_FILE_ENV]);

/** Every SEALPOST_ name in a text. */
const envNames = (text: string) => [...new Set(text.match(/SEALPOST_[A-Z0-9_]+/g) ?? [])];

/** Dockerfile instructions, continuation lines joined and comments dropped, grouped by stage. */
function dockerStages(text: string): { from: string; lines: [string, string][] }[] {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const stages: { from: string; lines: [string, string][] }[] = [];
  for (const line of joined
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const [, instr = '', rest = ''] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (instr.toUpperCase() === 'FROM') stages.push({ from: rest, lines: [] });
    else stages.at(-1)?.lines.push([instr.toUpperCase(), rest]);
  }
  return stages;
}

/** A systemd unit as section -> key -> values. */
function unitFile(text: string): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[(.+)\]$/.exec(line);
    if (head) section = head[1]!;
    else {
      const [k, ...v] = line.split('=');
      ((out[section] ??= {})[k!.trim()] ??= []).push(v.join('=').trim());
    }
  }
  return out;
}

describe('Dockerfile', () => {
  const stages = dockerStages(read('Dockerfile'));
  const final = stages.at(-1)!;
  const get = (instr: string) => final.lines.filter(([i]) => i === instr).map(([, v]) => v);

  it('builds the SQLite driver in a builder stage and copies the result into the runtime stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const builder = stages[0]!;
    expect(builder.from).toMatch(/ AS build$/i);
    expect(builder.lines.some(([i, v]) => i === 'RUN' && /\bg\+\+/.test(v))).toBe(true);
    expect(builder.lines.some(([i, v]) => i === 'RUN' && /npm ci\b.*--build-from-source/.test(v))).toBe(true);
    expect(get('COPY').some((v) => v.startsWith('--from=build'))).toBe(true);
    expect(final.lines.some(([i, v]) => i === 'RUN' && /npm (ci|install)/.test(v))).toBe(false);
  });

  it('runs as a non-root user', () => {
    const user = get('USER').at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
  });

  it('keeps the data directory under a volume', () => {
    const dataDir = /SEALPOST_DATA_DIR=(\S+)/.exec(get('ENV').join(' '))?.[1];
    expect(dataDir).toBe('/var/lib/sealpost');
    expect(get('VOLUME').join(' ')).toContain(dataDir);
  });

  it('exposes HTTP and the three SMTP ports and checks the roles it runs with `sealpost health`', () => {
    expect(get('EXPOSE').join(' ').split(/\s+/).sort()).toEqual(['25', '465', '587', '8080']);
    expect(get('HEALTHCHECK').join(' ')).toMatch(/CMD \["node", "bin\/sealpost\.js", "health"\]/);
    expect(get('CMD').join(' ')).toContain('start');
  });

  it('uses only configuration keys that exist', () => {
    for (const name of envNames(read('Dockerfile'))) expect(KNOWN_ENV, name).toContain(name);
  });
});

describe('compose.yaml', () => {
  const compose = parseYaml(read('compose.yaml'), { merge: true }) as {
    services: Record<
      string,
      {
        image?: string;
        command?: string[];
        ports?: string[];
        environment?: Record<string, string>;
        healthcheck?: { test: string[] };
        volumes?: string[];
      }
    >;
  };
  const services = compose.services;

  it('runs PostgreSQL and Sealpost with the api, worker and smtp roles in separate services', () => {
    expect(services.postgres?.image).toMatch(/^postgres:/);
    const roles = Object.values(services)
      .map((s) => s.command?.join(' ') ?? '')
      .filter((c) => c.startsWith('start'));
    expect(roles.sort()).toEqual(['start --roles api', 'start --roles smtp', 'start --roles worker']);
    expect(services.migrate?.command).toEqual(['migrate']);
    for (const name of ['api', 'worker', 'smtp', 'migrate'])
      expect(services[name]?.environment?.SEALPOST_DATABASE_URL, name).toMatch(
        /^postgres:\/\/.*@postgres:5432\//,
      );
  });

  it('checks each role with a health check that fits it, and gives worker and smtp a metrics port', () => {
    for (const role of ['api', 'worker', 'smtp'])
      expect(services[role]?.healthcheck?.test, role).toEqual([
        'CMD',
        'node',
        'bin/sealpost.js',
        'health',
        '--roles',
        role,
      ]);
    for (const role of ['worker', 'smtp'])
      expect(services[role]?.environment?.SEALPOST_METRICS_PORT, role).toBe('9464');
    expect(services.smtp?.volumes).toContain('./tls:/etc/sealpost/tls:ro');
  });

  it('publishes HTTP to the local proxy only and SMTP on 25, 465 and 587', () => {
    expect(services.api?.ports).toEqual(['127.0.0.1:8080:8080']);
    expect(services.smtp?.ports?.sort()).toEqual(['25:25', '465:465', '587:587']);
  });

  it('uses only configuration keys that exist', () => {
    for (const service of Object.values(services))
      for (const name of Object.keys(service.environment ?? {}).filter((n) => n.startsWith('SEALPOST_')))
        expect(KNOWN_ENV, name).toContain(name);
    for (const name of envNames(read('compose.yaml'))) expect(KNOWN_ENV, name).toContain(name);
  });
});

describe('deploy/sealpost.service', () => {
  const unit = unitFile(read('deploy/sealpost.service'));
  const service = unit.Service!;

  it('runs sealpost start as an unprivileged user with its state directory', () => {
    expect(service.User?.[0]).toBe('sealpost');
    expect(service.ExecStart?.[0]).toMatch(/bin\/sealpost\.js start$/);
    expect(service.StateDirectory?.[0]).toBe('sealpost');
    expect(service.Environment).toContain('SEALPOST_DATA_DIR=/var/lib/sealpost');
  });

  it('is hardened', () => {
    const want = {
      NoNewPrivileges: 'true',
      ProtectSystem: 'strict',
      ProtectHome: 'true',
      PrivateTmp: 'true',
      PrivateDevices: 'true',
      CapabilityBoundingSet: 'CAP_NET_BIND_SERVICE',
      RestrictSUIDSGID: 'true',
      SystemCallFilter: '@system-service',
    };
    for (const [key, value] of Object.entries(want)) expect(service[key]?.[0], key).toBe(value);
  });

  it('uses only configuration keys that exist', () => {
    for (const name of envNames(read('deploy/sealpost.service'))) expect(KNOWN_ENV, name).toContain(name);
  });
});

describe('docs/deploy.md', () => {
  it('names only configuration keys that exist, and links the packaging files', () => {
    const text = read('docs/deploy.md');
    for (const name of envNames(text)) expect(KNOWN_ENV, name).toContain(name);
    for (const file of ['../Dockerfile', '../compose.yaml', '../deploy/sealpost.service'])
      expect(text).toContain(`(${file})`);
  });
});
