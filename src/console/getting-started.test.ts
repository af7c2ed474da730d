/** The overview's getting-started checklist over HTTP: each step derived from the account's data, and gone when all are done. */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { sendMessage } from '../delivery/delivery.test-support.ts';
import { createForm } from '../forms/forms.test-support.ts';
import { createList } from '../marketing/lists/lists.service.ts';
import { uploadImport } from '../marketing/imports/imports.service.ts';
import { createTestUser, signInClient, type ConsoleClient } from './console.test-support.ts';

let t: TestApp;
let a: TestAccount;
let viewer: ConsoleClient;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.createAccount();
  viewer = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'viewer')).email);
});
afterAll(async () => t?.close());

/** Each step on the overview with its state and link, in order. */
async function steps(): Promise<string[]> {
  const body = (await viewer.get('/console')).body;
  return [
    ...body.matchAll(
      /<li class="(done|todo)" data-step="(\w+)">\s*<span[^>]*>[^<]*<\/span>\s*<span>\s*<a href="([^"]+)"/g,
    ),
  ].map((m) => `${m[2]} ${m[1]} ${m[3]}`);
}

describe('getting-started checklist', () => {
  it('derives each step from the data and links each to the page that does it', async () => {
    const db = t.ctx.database.db;
    await db
      .updateTable('domains')
      .set({ verified: 0 })
      .where('customer_id', '=', a.account.customer_id)
      .execute();
    await db
      .updateTable('api_keys')
      .set({ revoked_at: Date.now() })
      .where('customer_id', '=', a.account.customer_id)
      .execute();
    expect(await steps()).toEqual([
      'domain todo /console/domains',
      'key todo /console/keys',
      'test todo /console/campaigns',
      'form todo /console/forms',
      'import todo /console/audiences/imports',
    ]);
    expect((await viewer.get('/console')).body).toContain('0 of 5 done');

    await db
      .updateTable('domains')
      .set({ verified: 1 })
      .where('customer_id', '=', a.account.customer_id)
      .execute();
    await db
      .updateTable('api_keys')
      .set({ revoked_at: null })
      .where('customer_id', '=', a.account.customer_id)
      .execute();
    await sendMessage(t, a, {});
    const formId = await createForm(t.app, a.auth);
    await db.updateTable('forms').set({ active: 0 }).where('id', '=', formId).execute();
    expect((await steps()).map((s) => s.split(' ')[1])).toEqual(['done', 'done', 'done', 'todo', 'todo']);

    await db.updateTable('forms').set({ active: 1 }).where('id', '=', formId).execute();
    const list = await createList(t.ctx, a.account.customer_id, 'Patients');
    const imp = await uploadImport(t.ctx, a.account.customer_id, {
      listId: list.id,
      fileName: 'patients.csv',
      source: Readable.from(['email\nann@example.net\n']),
      createdBy: 'test',
    });
    // An uploaded import that has not run does not count; one that finished does.
    expect((await steps()).map((s) => s.split(' ')[1])).toEqual(['done', 'done', 'done', 'done', 'todo']);
    await db
      .updateTable('subscriber_imports')
      .set({ state: 'done' })
      .where('id', '=', Number(imp.id))
      .execute();

    const page = (await viewer.get('/console')).body;
    expect(page).not.toContain('Getting started');
    expect(await steps()).toEqual([]);
  });

  it('leads / to the console', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/console');
  });
});
