/** CSV imports through the console (upload, mapping, dry run, import by the worker, rejected rows) and the command line. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { startTestWorker } from '../../test/worker.ts';
import { waitFor } from '../../test/wait.ts';
import type { Worker } from '../../jobs/worker.ts';
import { runSealpost } from '../../bin/cli.test-support.ts';
import { createTestUser, signInClient, type ConsoleClient } from '../console.test-support.ts';
import { createList, listsOf } from '../../marketing/lists/lists.service.ts';
import { importQueue } from '../../marketing/imports/import.run.ts';
import { importOf } from '../../marketing/imports/imports.service.ts';

const masterKey = randomBytes(32).toString('base64');
let t: TestApp;
let a: TestAccount;
let editor: ConsoleClient;
let worker: Worker;

beforeAll(async () => {
  t = await createTestApp({ config: { masterKey } });
  a = await t.createAccount();
  editor = await signInClient(t.app, (await createTestUser(t, a.account.customer_id, 'editor')).email);
  worker = startTestWorker(t, {}, (ctx) => importQueue(ctx));
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

/** Uploads a CSV file with the form's text fields (by default the client's token and the list). */
function upload(
  client: ConsoleClient,
  listId: string,
  csv: string,
  fields: [string, string][] = [
    ['_csrf', client.csrf],
    ['list', listId],
  ],
) {
  const boundary = 'sealpostboundary';
  const body =
    fields
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      )
      .join('') +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="people.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`;
  return t.app.inject({
    method: 'POST',
    url: '/console/audiences/imports',
    headers: { cookie: client.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: body,
  });
}

const CSV = [
  'E-mail,Given name,Surname,Clinic',
  'ana@example.org,Ana,Ruiz,North',
  'not-an-address,Bad,Row,South',
  'bo@example.org,Bo,Li,',
  ',Empty,Email,',
  'ANA@example.org,Anna,Copy,West',
].join('\n');

describe('subscriber imports', () => {
  it('uploads, guesses the mapping, checks the file without writing, then imports and lists the rejected rows', async () => {
    const list = await createList(t.ctx, a.account.customer_id, 'Imported');
    const res = await upload(editor, String(list.id), CSV);
    expect(res.statusCode).toBe(303);
    const page = res.headers.location as string;
    const id = page.split('/').pop()!;
    const mapping = await editor.get(page);
    expect(mapping.body).toContain('Column “E-mail”');
    expect(mapping.body).toMatch(/name="map_0">[\s\S]*?<option value="email" selected/);
    // The first rows as mapped, before anything runs.
    expect(mapping.body).toMatch(
      /<td data-label="Email">ana@example\.org<\/td>\s*<td data-label="First name">Ana<\/td>/,
    );
    const form = {
      _csrf: editor.csrf,
      map_0: 'email',
      map_1: 'first_name',
      map_2: 'last_name',
      map_3: 'custom',
      consent: 'existing_relationship',
    };
    const state = async () => (await importOf(t.ctx, a.account.customer_id, id)).state;
    const early = await editor.post(`${page}/start`, { ...form, mode: 'import' });
    expect(early.statusCode).toBe(303);
    expect((await editor.get(page)).body).toMatch(/check the file with these columns first/i);
    await editor.post(`${page}/start`, { ...form, consent: '', mode: 'dry' });
    expect((await editor.get(page)).body).toMatch(/choose why you may email the people in this file/i);
    expect(await state()).toBe('uploaded');

    await editor.post(`${page}/start`, { ...form, mode: 'dry' });
    const checked = await waitFor(async () => {
      const i = await importOf(t.ctx, a.account.customer_id, id);
      return i.state === 'checked' && i;
    }, 10_000);
    expect(checked).toMatchObject({ rows_done: 5, added: 2, updated: 0, failed: 3 });
    const seen = (await editor.get(page)).body;
    expect(seen).toMatch(
      /<td data-label="Line">6<\/td>[\s\S]*?repeats the email of line 2; that row was kept/,
    );
    // A column changed after the check needs a new check.
    const { map_3: _, ...fewer } = form;
    await editor.post(`${page}/start`, { ...fewer, mode: 'import' });
    expect(await state()).toBe('checked');
    expect(
      (await listsOf(t.ctx, a.account.customer_id)).data.find((l) => l.id === list.id)!.attributes
        .subscriber_count,
    ).toBe(0);

    await editor.post(`${page}/start`, { ...form, mode: 'import' });
    const done = await waitFor(async () => {
      const i = await importOf(t.ctx, a.account.customer_id, id);
      return i.state === 'done' && i;
    }, 10_000);
    expect(done).toMatchObject({ rows_done: 5, added: 2, failed: 3, consent_basis: 'existing_relationship' });
    expect(
      (await listsOf(t.ctx, a.account.customer_id)).data.find((l) => l.id === list.id)!.attributes
        .subscriber_count,
    ).toBe(2);
    const report = await editor.get(`${page}/errors.csv`);
    expect(report.body.trim().split('\n')).toEqual([
      'line,email,reason',
      '3,not-an-address,not a valid email address',
      '5,,the email column is empty',
      '6,ANA@example.org,repeats the email of line 2; that row was kept',
    ]);
    const ana = await t.ctx.database.db
      .selectFrom('subscribers')
      .select('first_name')
      .where('email_key', '=', 'ana@example.org')
      .executeTakeFirstOrThrow();
    expect(ana.first_name).toBe('Ana');
    const audit = await t.ctx.database.db
      .selectFrom('audit_log')
      .select('detail')
      .where('action', '=', 'import.start')
      .execute();
    expect(audit.map((r) => JSON.parse(String(r.detail)).consent_basis)).toEqual(['existing_relationship']);
    const progress = await editor.get(`${page}/progress.json`);
    expect(JSON.parse(progress.body)).toMatchObject({ finished: true, percent: 100, added: 2 });
  });

  it('refuses a mapping without an email column and queues nothing', async () => {
    const list = await createList(t.ctx, a.account.customer_id, 'No email');
    const page = (await upload(editor, String(list.id), CSV)).headers.location as string;
    await editor.post(`${page}/start`, {
      _csrf: editor.csrf,
      map_1: 'first_name',
      consent: 'opt_in',
      mode: 'dry',
    });
    expect((await editor.get(page)).body).toMatch(/map exactly one column to the email address/i);
    expect((await importOf(t.ctx, a.account.customer_id, page.split('/').pop()!)).state).toBe('uploaded');
  });

  it('answers an upload whose fields its schema refuses with the error page, and keeps no import', async () => {
    const list = await createList(t.ctx, a.account.customer_id, 'Refused uploads');
    const imports = () =>
      t.ctx.database.db
        .selectFrom('subscriber_imports')
        .select('id')
        .where('customer_id', '=', a.account.customer_id)
        .execute();
    const before = await imports();
    const cases: [[string, string][], string][] = [
      [[['_csrf', editor.csrf]], 'List is required.'],
      [
        [
          ['_csrf', editor.csrf],
          ['list', String(list.id)],
          ['list', String(list.id)],
        ],
        'List must be string.',
      ],
      [
        [
          ['_csrf', editor.csrf],
          ['list', 'x'.repeat(10_000)],
        ],
        'List must NOT have more than 64 characters.',
      ],
    ];
    for (const [fields, reason] of cases) {
      const res = await upload(editor, String(list.id), CSV, fields);
      expect(res.statusCode, reason).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain(`<p>${reason}</p>`);
    }
    expect(await imports()).toEqual(before);
    expect((await upload(editor, String(list.id), CSV)).statusCode).toBe(303);
  });

  it('imports from the command line with the same rules', async () => {
    const list = await createList(t.ctx, a.account.customer_id, 'From the shell');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'sealpost-import-')), 'people.csv');
    writeFileSync(file, CSV);
    const run = await runSealpost(t.scratch.url, masterKey, [
      'subscribers',
      'import',
      '--account',
      a.account.username,
      '--list',
      String(list.id),
      '--json',
      file,
    ]);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ state: 'done', rows_done: 5, failed: 3 });
    expect(
      (await listsOf(t.ctx, a.account.customer_id)).data.find((l) => l.id === list.id)!.attributes
        .subscriber_count,
    ).toBe(2);
  });
});
