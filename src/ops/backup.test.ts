/**
 * `sealpost backup` and `sealpost restore` as a user runs them. On the embedded database a backup taken while messages
 * are being accepted restores into a database that holds every message acknowledged before the backup began, each
 * whole, readable through the API with the same key. On PostgreSQL both commands point to pg_dump.
 */
import sharp from 'sharp';
import { uploadImage } from '../accounts/images.service.ts';
import { CLI_CHANGE } from '../audit/audit.service.ts';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSealpostWith } from '../bin/cli.test-support.ts';
import { connect } from '../db/connect.ts';
import { buildApp } from '../app/app.ts';
import { createContext } from '../runtime.ts';
import { waitFor } from '../test/wait.ts';
import { message, postJson } from '../email/email.test-support.ts';
import { TEST_DIALECT } from '../test/database.ts';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';

describe.runIf(TEST_DIALECT === 'sqlite')('backup and restore of the embedded database', () => {
  let t: TestApp;
  let acct: TestAccount;
  let dir: string;
  let masterKey: string;

  beforeAll(async () => {
    t = await createTestApp({ dialect: 'sqlite' });
    acct = await t.createAccount();
    masterKey = t.ctx.config.masterKey!;
    dir = mkdtempSync(path.join(tmpdir(), 'sealpost-backup-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Sends one message; resolves with its id once acknowledged. */
  async function send(n: number): Promise<string> {
    const res = await postJson(t, '/v1/email/messages', acct.auth, {
      data: {
        message: message(`clinic@${acct.domain}`, {
          headers: { subject: `m${n}`, from: `clinic@${acct.domain}` },
        }),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { sourceTrackingId: string }).sourceTrackingId;
  }

  it('restores a backup taken under write load with every message acknowledged before it began', async () => {
    for (let i = 0; i < 50; i++) await send(i);
    const logo = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    const image = await uploadImage(
      t.ctx,
      acct.account.customer_id,
      { name: 'logo.png', data: logo },
      CLI_CHANGE,
    );
    const imageBytes = (await t.app.inject({ url: new URL(image.url).pathname })).rawPayload;
    const acked: { id: string; at: number }[] = [];
    let load = true;
    let n = 50;
    const writers = Array.from({ length: 4 }, async () => {
      while (load) {
        const id = await send(n++);
        acked.push({ id, at: Date.now() });
      }
    });
    // The backup starts once the writers have had messages acknowledged, so it runs under their load.
    await waitFor(() => acked.length >= 4, 20_000);
    const out = path.join(dir, 'backup.db');
    const began = Date.now();
    const backup = await runSealpostWith(
      { SEALPOST_DATABASE_URL: t.scratch.url, SEALPOST_MASTER_KEY: masterKey },
      ['backup', '--out', out, '--json'],
    );
    const ended = Date.now();
    load = false;
    await Promise.all(writers);
    expect(backup.code, backup.stderr).toBe(0);
    const report = JSON.parse(backup.stdout) as {
      bytes: number;
      schema: string;
      masterKey: { result: string };
    };
    expect(report.masterKey.result).toBe('ok');
    expect(report.schema).toMatch(/^\d{4}_/);
    expect(acked.filter((a) => a.at > began && a.at < ended).length).toBeGreaterThan(0);

    const restoredDir = path.join(dir, 'restored');
    const restore = await runSealpostWith(
      { SEALPOST_DATA_DIR: restoredDir, SEALPOST_MASTER_KEY: masterKey },
      ['restore', '--from', out, '--json'],
    );
    expect(restore.code, restore.stderr).toBe(0);
    // Each copy is one file that only its owner may read.
    const restored = path.join(restoredDir, 'sealpost.db');
    for (const file of [out, restored]) {
      expect(statSync(file).mode & 0o777, file).toBe(0o600);
      expect(
        readdirSync(path.dirname(file)).filter((f) => /-(wal|shm)$/.test(f)),
        file,
      ).toEqual([]);
    }

    const database = await connect({ dialect: 'sqlite', file: path.join(restoredDir, 'sealpost.db') });
    const ctx = createContext(
      t.ctx.config,
      database,
      Buffer.from(masterKey, 'base64'),
      pino({ level: 'silent' }),
    );
    const app = await buildApp(ctx);
    try {
      const before = acked.filter((a) => a.at < began).map((a) => a.id);
      expect(before.length).toBeGreaterThan(0);
      const present = new Set(
        (await database.db.selectFrom('messages').select('id').execute()).map((r) => r.id),
      );
      for (const id of before) expect(present.has(id), id).toBe(true);
      const orphans = await database.db
        .selectFrom('messages')
        .leftJoin('message_recipients', 'message_recipients.message_id', 'messages.id')
        .where('message_recipients.id', 'is', null)
        .select('messages.id')
        .execute();
      expect(orphans).toEqual([]);
      for (const id of before.slice(-20)) {
        const res = await app.inject({
          url: `/v1/email/message_receipt?sourceTrackingId=${id}`,
          headers: acct.auth,
        });
        expect(res.statusCode, res.body).toBe(200);
      }
      // The image library came along: the same URL serves the same bytes.
      const served = await app.inject({ url: new URL(image.url).pathname });
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.equals(imageBytes)).toBe(true);
    } finally {
      await app.close();
      await database.close();
    }
  });

  it('refuses to restore with a master key that does not decrypt the backup, and changes nothing', async () => {
    const out = path.join(dir, 'second.db');
    const backup = await runSealpostWith(
      { SEALPOST_DATABASE_URL: t.scratch.url, SEALPOST_MASTER_KEY: masterKey },
      ['backup', '--out', out],
    );
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain('does not contain the master key');
    const other = path.join(dir, 'other');
    const r = await runSealpostWith(
      { SEALPOST_DATA_DIR: other, SEALPOST_MASTER_KEY: randomBytes(32).toString('base64') },
      ['restore', '--from', out],
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: the master key .* does not decrypt this backup/);
    expect(existsSync(path.join(other, 'sealpost.db'))).toBe(false);
  });

  it('refuses to restore into a data directory without a master key, and makes no key of its own', async () => {
    const out = path.join(dir, 'third.db');
    const backup = await runSealpostWith(
      { SEALPOST_DATABASE_URL: t.scratch.url, SEALPOST_MASTER_KEY: masterKey },
      ['backup', '--out', out],
    );
    expect(backup.code, backup.stderr).toBe(0);
    const empty = path.join(dir, 'empty');
    const r = await runSealpostWith({ SEALPOST_DATA_DIR: empty }, ['restore', '--from', out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `configuration error: no master key: put the key the data was sealed with in ${path.join(empty, 'master.key')} or SEALPOST_MASTER_KEY first`,
    );
    expect(existsSync(path.join(empty, 'master.key'))).toBe(false);
    expect(existsSync(path.join(empty, 'sealpost.db'))).toBe(false);
  });

  it('refuses to overwrite an existing file', async () => {
    const out = path.join(dir, 'second.db');
    const r = await runSealpostWith(
      { SEALPOST_DATABASE_URL: t.scratch.url, SEALPOST_MASTER_KEY: masterKey },
      ['backup', '--out', out],
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('already exists');
  });
});

describe.runIf(TEST_DIALECT === 'postgres')('backup on PostgreSQL', () => {
  it('points to pg_dump and exits 1', async () => {
    const vars = {
      SEALPOST_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
      SEALPOST_MASTER_KEY: randomBytes(32).toString('base64'),
    };
    const r = await runSealpostWith(vars, ['backup', '--out', path.join(tmpdir(), `never-${Date.now()}.db`)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('pg_dump --format=custom');
    expect(r.stderr).toContain('pg_restore');
  });
});
