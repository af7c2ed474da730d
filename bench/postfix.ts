/**
 * A private Postfix instance (Debian's `/usr/sbin/postfix`) relaying everything it accepts to one loopback port, as a
 * peer for the delivery benchmarks. It runs in a temporary directory of its own (configuration, queue, data and its
 * log), listens on a free loopback port, delivers nothing locally, and relays with STARTTLS required and TLS
 * connections reused (`smtp_tls_connection_reuse`, through tlsproxy and tlsmgr). A system Postfix, running or not, is
 * left alone: the instance shares no file or port with it.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { freePort } from './support.ts';

export const POSTFIX = '/usr/sbin/postfix';

/** Whether this machine can run the Postfix peer (Debian's postfix installed, run as root). */
export function postfixAvailable(): { ok: true } | { ok: false; why: string } {
  if (!existsSync(POSTFIX)) return { ok: false, why: `${POSTFIX} is not installed` };
  if (userInfo().uid !== 0) return { ok: false, why: 'a private Postfix instance needs root to start' };
  return { ok: true };
}

/** A running private instance: the port it accepts mail on, and its stop (which also removes its directory). */
export interface PostfixRelay {
  port: number;
  /** The instance's mail log, for a look at what it did. */
  logFile: string;
  stop(): Promise<void>;
}

function postfix(configDir: string, command: string): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(POSTFIX, ['-c', configDir, command], (err, stdout, stderr) =>
      err ? reject(new Error(`postfix ${command} failed: ${stderr || stdout || err.message}`)) : resolve(),
    ),
  );
}

// Debian's master.cf with chroot off everywhere (the queue directory is not a prepared chroot), the SMTP server on
// the instance's port only, tlsproxy enabled for TLS connection reuse, and no local or pipe transports.
const masterCf = (port: number) => `
127.0.0.1:${port} inet n - n - - smtpd
pickup    unix  n - n 60    1 pickup
cleanup   unix  n - n -     0 cleanup
qmgr      unix  n - n 300   1 qmgr
tlsmgr    unix  - - n 1000? 1 tlsmgr
tlsproxy  unix  - - n -     0 tlsproxy
rewrite   unix  - - n -     - trivial-rewrite
bounce    unix  - - n -     0 bounce
defer     unix  - - n -     0 bounce
trace     unix  - - n -     0 bounce
verify    unix  - - n -     1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n -     - proxymap
proxywrite unix - - n -     1 proxymap
smtp      unix  - - n -     - smtp
relay     unix  - - n -     - smtp
showq     unix  n - n -     - showq
error     unix  - - n -     - error
retry     unix  - - n -     - error
discard   unix  - - n -     - discard
anvil     unix  - - n -     1 anvil
scache    unix  - - n -     1 scache
postlog   unix-dgram n - n - 1 postlogd
`;

const mainCf = (dir: string, relayPort: number) => `
compatibility_level = 3.6
queue_directory = ${dir}/spool
data_directory = ${dir}/data
mail_owner = postfix
setgid_group = postdrop
myhostname = relay.bench.example
inet_interfaces = loopback-only
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = permit_mynetworks, reject
mydestination =
local_recipient_maps =
local_transport = error:local delivery is off
alias_maps =
alias_database =
relayhost = [127.0.0.1]:${relayPort}
smtp_tls_security_level = encrypt
smtp_tls_connection_reuse = yes
maillog_file_prefixes = ${dir}
maillog_file = ${dir}/maillog
biff = no
`;

/** Starts a private Postfix relaying to `127.0.0.1:relayPort`; on failure nothing is left running or on disk. */
export async function startPostfixRelay(relayPort: number): Promise<PostfixRelay> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sealpost-postfix-'));
  // Postfix's daemons run as the postfix user and must reach the queue below the temp directory.
  chmodSync(dir, 0o755);
  const configDir = path.join(dir, 'etc');
  const port = await freePort();
  for (const sub of ['etc', 'spool', 'data']) mkdirSync(path.join(dir, sub));
  const owner = await postfixIds();
  chownSync(path.join(dir, 'data'), owner.uid, owner.gid);
  writeFileSync(path.join(configDir, 'main.cf'), mainCf(dir, relayPort));
  writeFileSync(path.join(configDir, 'master.cf'), masterCf(port));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    await postfix(configDir, 'check');
    await postfix(configDir, 'start');
  } catch (err) {
    await postfix(configDir, 'stop').catch(() => undefined);
    remove();
    throw err;
  }
  return {
    port,
    logFile: path.join(dir, 'maillog'),
    stop: async () => {
      try {
        await postfix(configDir, 'stop');
      } finally {
        remove();
      }
    },
  };
}

/** The uid and gid of the postfix user. */
async function postfixIds(): Promise<{ uid: number; gid: number }> {
  const line = await new Promise<string>((resolve, reject) =>
    execFile('getent', ['passwd', 'postfix'], (err, out) => (err ? reject(err) : resolve(out))),
  );
  const [, , uid, gid] = line.trim().split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
