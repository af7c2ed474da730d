/** Test helper: runs the `sealpost` command as a user runs it, on a test database, in a child process. */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What one command run gave. */
export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `sealpost <args>` against the database at `databaseUrl`, with no other SEALPOST_ variable than those given here; `stdin` is its input. */
export function runSealpost(
  databaseUrl: string,
  masterKey: string,
  args: string[],
  stdin?: string,
): Promise<CommandRun> {
  return runSealpostWith(
    { SEALPOST_DATABASE_URL: databaseUrl, SEALPOST_MASTER_KEY: masterKey },
    args,
    60_000,
    stdin,
  );
}

/** Runs `sealpost <args>` with exactly the given SEALPOST_ variables (and a quiet log level); `stdin` is its input. */
export function runSealpostWith(
  vars: Record<string, string>,
  args: string[],
  timeoutMs = 60_000,
  stdin?: string,
): Promise<CommandRun> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SEALPOST_')) env[k] = v;
  Object.assign(env, { SEALPOST_LOG_LEVEL: 'warn' }, vars);
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['bin/sealpost.js', ...args],
      { cwd: ROOT, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin ?? '');
  });
}

/** The first line an SMTP server sends on connect. */
export function smtpBanner(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(5000, () => socket.destroy(new Error('no SMTP banner')));
    socket.once('data', (d) => {
      resolve(d.toString('utf8').split('\r\n')[0] ?? '');
      socket.end('QUIT\r\n');
    });
    socket.once('error', reject);
  });
}
