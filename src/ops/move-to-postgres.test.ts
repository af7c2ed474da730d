/**
 * `sealpost move-to-postgres` as a user runs it: an embedded install filled through the API is moved into an empty
 * PostgreSQL database; the service opened on PostgreSQL with the same master key gives the same answers, console users
 * sign in, and new rows get keys past the copied ones and UUIDs of their own. The test uses both engines itself, so it runs once (in the
 * SQLite run).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSealpostWith } from '../bin/cli.test-support.ts';
import { connect, type Database } from '../db/connect.ts';
import { sqliteDriver } from '../db/sqlite-driver.ts';
import { buildApp } from '../app/app.ts';
import { createContext } from '../runtime.ts';
import { createScratchDatabase, TEST_DIALECT, type ScratchDatabase } from '../test/database.ts';
import { createTestApp, testConfig, type TestAccount, type TestApp } from '../test/harness.ts';
import { signInClient } from '../console/console.test-support.ts';
import { keyOf, makeSubscriber, marketingClient } from '../marketing/marketing.test-support.ts';
import { isUuid } from '../marketing/ids.ts';
import { answers, seedEverything, type Seeded } from './move.test-support.ts';

describe.runIf(TEST_DIALECT === 'sqlite')('moving an embedded install to PostgreSQL', () => {
  let t: TestApp;
  let acct: TestAccount;
  let seeded: Seeded;
  let before: Awaited<ReturnType<typeof answers>>;
  let pg: ScratchDatabase;
  let masterKey: string;

  beforeAll(async () => {
    t = await createTestApp({ dialect: 'sqlite', config: { webhookAllowPrivateTargets: true } });
    acct = await t.createAccount();
    masterKey = t.ctx.config.masterKey!;
    seeded = await seedEverything(t, acct);
    before = await answers(t.app, acct, seeded.urls);
    for (const [url, answer] of Object.entries(before)) expect(answer.status, url).toBe(200);
    await t.app.close();
    await t.ctx.database.close();
    pg = await createScratchDatabase('postgres');
  });
  afterAll(async () => {
    await pg?.drop();
    await t?.scratch.drop();
  });

  const move = (to: string, extra: string[] = []) =>
    runSealpostWith({ SEALPOST_DATABASE_URL: t.scratch.url, SEALPOST_MASTER_KEY: masterKey }, [
      'move-to-postgres',
      '--to',
      to,
      ...extra,
    ]);

  it('copies every table of the schema, verified, and the service answers the same on PostgreSQL', async () => {
    const run = await move(pg.url, ['--json', '--batch-size', '7']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      status: string;
      tables: { table: string; rows: number; checksum: string }[];
    };
    expect(report.status).toBe('moved');
    // Every table of the embedded schema (not a fixed list) was copied, with its rows.
    const sqlite = new (sqliteDriver())(t.scratch.url.replace(/^sqlite:\/\//, ''), { readonly: true });
    const names = (
      sqlite
        .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
        .all() as { name: string }[]
    )
      .map((r) => r.name)
      .filter((n) => !n.startsWith('kysely_'));
    const counts = Object.fromEntries(
      names.map((n) => [n, (sqlite.prepare(`select count(*) as n from "${n}"`).get() as { n: number }).n]),
    );
    sqlite.close();
    expect(report.tables.map((x) => x.table).sort()).toEqual([...names].sort());
    for (const x of report.tables) expect(x.rows, x.table).toBe(counts[x.table]);
    expect(counts.messages).toBe(3);
    expect(counts.form_submissions).toBe(2);

    const config = testConfig({ databaseUrl: pg.url, masterKey });
    const database: Database = await connect(pg.target);
    const ctx = createContext(config, database, Buffer.from(masterKey, 'base64'), pino({ level: 'silent' }));
    const app = await buildApp(ctx);
    await app.ready();
    try {
      expect(await answers(app, acct, seeded.urls)).toEqual(before);
      // Sealed content opens with the same key: a receipt lists the message, a submission its form data.
      expect(JSON.stringify(before)).toContain('Grace');
      // The opt-in settings of a list, a membership waiting for confirmation, and the postal address came along.
      expect(JSON.stringify(before)).toContain('"double_opt_in":true');
      expect(JSON.stringify(before)).toContain('"confirmed":false');
      expect(JSON.stringify(before)).toContain('1 Harbour Road, Leith');
      // The image library and the logo came along, and the image is served byte for byte from PostgreSQL.
      expect(JSON.stringify(before)).toContain('logo.webp');
      expect(JSON.stringify(before)).toContain('"brand_color":"#0b5c7a"');
      expect(before[seeded.urls.find((u) => u.startsWith('/img/'))!]!.status).toBe(200);
      const console = await signInClient(app, seeded.userEmail);
      expect((await console.get('/console/messages')).statusCode).toBe(200);
      // Identity counters continue past the copied keys, and PostgreSQL gives the new row its own UUID.
      const onPg = { ...t, app, ctx };
      const call = marketingClient(onPg, acct);
      const next = await makeSubscriber(call, 'cat@patients.example', {}, seeded.listId);
      const copied = (
        before[`/v1/marketing/${acct.account.username}/subscribers`]!.body as { data: { id: string }[] }
      ).data.map((s) => s.id);
      expect(copied.length).toBeGreaterThan(1);
      expect(isUuid(next), next).toBe(true);
      expect(copied).not.toContain(next);
      const copiedKeys = await Promise.all(copied.map((id) => keyOf(onPg, 'subscribers', id)));
      expect(await keyOf(onPg, 'subscribers', next)).toBeGreaterThan(Math.max(...copiedKeys));
      // The membership rows written with it (its list and the default list) got UUIDs from the column default too.
      const members = await database.db
        .selectFrom('subscription_list_members')
        .select('uuid')
        .where('subscriber_id', '=', await keyOf(onPg, 'subscribers', next))
        .execute();
      expect(members.length).toBe(2);
      for (const m of members) expect(isUuid(m.uuid), m.uuid).toBe(true);
      expect(new Set(members.map((m) => m.uuid)).size).toBe(2);
    } finally {
      await app.close();
      await database.close();
    }
  });

  it('refuses a PostgreSQL database that already holds data, changing nothing', async () => {
    const run = await move(pg.url);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: the PostgreSQL database is not empty \(.*\); move into a new, empty database\n$/,
    );
  });
});
