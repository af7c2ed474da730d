/**
 * `sealpost health`: whether the roles this container runs are alive, for a container health check. Each role is
 * probed as what it serves: `api` answers GET /healthz on its HTTP port; `smtp` greets with 220 on its first plain
 * listener; `worker` serves no port, so its heartbeat row (takeover.ts) for this node must be fresher than the
 * takeover limit. Read-only; one connection to the database only for the worker.
 */
import net from 'node:net';
import os from 'node:os';
import type { Config } from '../config/schema.ts';
import { databaseTarget } from '../config/load.ts';
import { connect } from '../db/connect.ts';
import { lastBeatOfNode } from '../jobs/nodes.repository.ts';

/** The answer for one role. */
export interface RoleHealth {
  role: string;
  ok: boolean;
  detail: string;
}

const PROBE_TIMEOUT_MS = 3000;

/** The address to probe a listener bound to `host` on: loopback for a wildcard bind. */
const probeHost = (host: string) => (host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host);

/** Probes each role; roles are `api`, `worker`, `smtp`. */
export async function checkHealth(config: Config, roles: readonly string[]): Promise<RoleHealth[]> {
  const probes: Record<string, (c: Config) => Promise<RoleHealth>> = { api, smtp, worker };
  return Promise.all(roles.map((r) => probes[r]!(config)));
}

async function api(config: Config): Promise<RoleHealth> {
  const url = `http://${probeHost(config.httpHost)}:${config.httpPort}/healthz`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return { role: 'api', ok: res.ok, detail: `${url} answered ${res.status}` };
  } catch (err) {
    return { role: 'api', ok: false, detail: `${url}: ${(err as Error).message}` };
  }
}

async function smtp(config: Config): Promise<RoleHealth> {
  const port = [config.smtpSubmissionPort, config.smtpPort25].find((p) => p !== 0);
  if (port === undefined)
    return { role: 'smtp', ok: true, detail: 'no plain SMTP listener configured; not probed' };
  const host = probeHost(config.smtpHost);
  const banner = await new Promise<string>((resolve) => {
    const socket = net.connect(port, host);
    socket.setTimeout(PROBE_TIMEOUT_MS, () => socket.destroy(new Error('no greeting')));
    socket.once('data', (d) => {
      resolve(d.toString().split('\r\n')[0]!);
      socket.end('QUIT\r\n');
    });
    socket.once('error', (err) => resolve(err.message));
  });
  return { role: 'smtp', ok: banner.startsWith('220'), detail: `${host}:${port}: ${banner}` };
}

async function worker(config: Config): Promise<RoleHealth> {
  const node = config.nodeName || os.hostname();
  const database = await connect(databaseTarget(config), { poolSize: 1 });
  try {
    const since = Date.now() - config.nodeTakeoverMs;
    const last = await lastBeatOfNode(database.db, node);
    if (last === undefined)
      return { role: 'worker', ok: false, detail: `no heartbeat of a worker on node ${node}` };
    const age = Date.now() - last;
    return {
      role: 'worker',
      ok: last >= since,
      detail: `last heartbeat of node ${node} ${Math.round(age / 1000)} s ago (limit ${config.nodeTakeoverMs / 1000} s)`,
    };
  } catch (err) {
    return { role: 'worker', ok: false, detail: `database: ${(err as Error).message}` };
  } finally {
    await database.close();
  }
}

/** One line per role, for people. */
export function healthText(results: RoleHealth[]): string {
  return results.map((r) => `${r.ok ? 'ok  ' : 'FAIL'}  ${r.role.padEnd(6)} ${r.detail}`).join('\n');
}
