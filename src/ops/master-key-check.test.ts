/**
 * The master key check behind `sealpost start`: the first start seals a value with its key; a later start with
 * another key is refused, naming the key that sealed the data; a database from before the check value is checked
 * against a domain's sealed DKIM key.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_DIALECT } from '../test/database.ts';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { checkKeyOnDatabase, keyFingerprint } from './master-key-check.ts';

describe(`master key check (${TEST_DIALECT})`, () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const checkRows = (app: TestApp) =>
    app.ctx.database.db.selectFrom('master_key_check').selectAll().execute();

  it('records a value sealed with the first key, then opens it with that key and refuses another', async () => {
    t = await createTestApp();
    const key = Buffer.from(t.ctx.config.masterKey!, 'base64');
    const other = randomBytes(32);
    expect(await checkKeyOnDatabase(t.ctx.database.db, key, 'k', { record: true })).toMatchObject({
      result: 'ok',
      sealedBy: keyFingerprint(key),
    });
    expect(await checkRows(t)).toHaveLength(1);
    expect(await checkKeyOnDatabase(t.ctx.database.db, other, 'k', { record: true })).toMatchObject({
      result: 'mismatch',
      fingerprint: keyFingerprint(other),
      sealedBy: keyFingerprint(key),
    });
    // A refused key writes nothing: the value of the first key stays.
    expect((await checkRows(t))[0]!.fingerprint).toBe(keyFingerprint(key));
  });

  it('checks a database without the value against a sealed DKIM key, and records nothing for a refused key', async () => {
    t = await createTestApp();
    await t.createAccount();
    const key = Buffer.from(t.ctx.config.masterKey!, 'base64');
    expect((await checkKeyOnDatabase(t.ctx.database.db, randomBytes(32), 'k', { record: true })).result).toBe(
      'mismatch',
    );
    expect(await checkRows(t)).toHaveLength(0);
    expect((await checkKeyOnDatabase(t.ctx.database.db, key, 'k')).result).toBe('ok');
    expect(await checkRows(t)).toHaveLength(0);
  });

  it('says there is nothing to check against in an empty database unless asked to record', async () => {
    t = await createTestApp();
    expect((await checkKeyOnDatabase(t.ctx.database.db, randomBytes(32), 'k')).result).toBe('nothing-sealed');
    expect(await checkRows(t)).toHaveLength(0);
  });
});
