/** A form posted after the session went idle: kept sealed for its user, restored once after signing in again. */
import { describe, expect, it } from 'vitest';
import { consoleTestBed, signInClient } from './console.test-support.ts';

const {
  t,
  clients: [editor, other],
} = consoleTestBed(['editor', 'editor']);

/** Makes the client's session idle past the timeout (its row stays, as it does until housekeeping). */
async function goIdle(cookie: string): Promise<void> {
  void cookie;
  await t.ctx.database.db
    .updateTable('console_sessions')
    .set({ last_seen_at: Date.now() - (t.ctx.config.consoleIdleTimeoutSeconds + 5) * 1000 })
    .execute();
}

describe('work posted on an expired session', () => {
  it('keeps the form for its user, says the session expired, and restores it once after sign-in', async () => {
    const posted = {
      _csrf: editor.csrf,
      subject: 'Flu shots are here',
      from_email: 'news@example.org',
      from_name: 'Clinic',
      html_part: '<p>Sixteen minutes of writing</p>',
      text_part: '',
    };
    const users = await t.ctx.database.db.selectFrom('users').select(['id', 'email']).execute();
    await goIdle(editor.cookie);
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/campaigns/mailings',
      headers: {
        cookie: editor.cookie,
        host: 'clinic.example',
        referer: 'http://clinic.example/console/campaigns',
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams(posted).toString(),
    });
    expect(res.statusCode).toBe(303);
    const location = res.headers.location as string;
    expect(location).toMatch(/^\/console\/sign-in\?expired=1&next=/);
    const next = new URL(location, 'http://x').searchParams.get('next')!;
    expect(next).toMatch(/^\/console\/campaigns\?draft=[\w-]+$/);
    expect((await t.app.inject({ method: 'GET', url: location })).body).toContain('Your session expired');
    // Nothing was saved, and the kept fields are sealed.
    expect(await t.ctx.database.db.selectFrom('campaign_mailings').select('id').execute()).toHaveLength(0);
    const row = await t.ctx.database.db.selectFrom('console_drafts').selectAll().executeTakeFirstOrThrow();
    expect(row.sealed).not.toContain('Sixteen');

    const draftId = next.split('draft=')[1]!;
    const editorEmail = users.find((u) => u.id === row.user_id)!.email;
    // Another user cannot read it; the same user, signed in again, reads it once.
    const stranger = users.find((u) => u.id !== row.user_id)!;
    const strangerClient = stranger.email === editorEmail ? other : await signInClient(t.app, stranger.email);
    expect((await strangerClient.get(`/console/drafts/${draftId}`)).statusCode).toBe(404);
    const again = await signInClient(t.app, editorEmail);
    const draft = await again.get(`/console/drafts/${draftId}`);
    expect(draft.statusCode).toBe(200);
    expect(draft.json()).toEqual({
      action: '/console/campaigns/mailings',
      fields: {
        subject: 'Flu shots are here',
        from_email: 'news@example.org',
        from_name: 'Clinic',
        html_part: '<p>Sixteen minutes of writing</p>',
      },
    });
    expect((await again.get(`/console/drafts/${draftId}`)).statusCode).toBe(404);
  });

  it('keeps nothing for a post without the session’s form token', async () => {
    const before = (await t.ctx.database.db.selectFrom('console_drafts').select('id').execute()).length;
    const fresh = await signInClient(
      t.app,
      (await t.ctx.database.db.selectFrom('users').select('email').executeTakeFirstOrThrow()).email,
    );
    await goIdle(fresh.cookie);
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/campaigns/mailings',
      headers: { cookie: fresh.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: 'forged', subject: 'x' }).toString(),
    });
    expect(res.headers.location).toBe('/console/sign-in?next=%2Fconsole');
    expect((await t.ctx.database.db.selectFrom('console_drafts').select('id').execute()).length).toBe(before);
  });

  it('stays signed in on request', async () => {
    const fresh = await signInClient(
      t.app,
      (await t.ctx.database.db.selectFrom('users').select('email').executeTakeFirstOrThrow()).email,
    );
    await t.ctx.database.db
      .updateTable('console_sessions')
      .set({ last_seen_at: Date.now() - 60_000 })
      .execute();
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/session/keep-alive',
      headers: { cookie: fresh.cookie, 'x-csrf-token': fresh.csrf },
    });
    expect(res.statusCode).toBe(204);
    const seen = await t.ctx.database.db.selectFrom('console_sessions').select('last_seen_at').execute();
    expect(seen.some((s) => Number(s.last_seen_at) > Date.now() - 5000)).toBe(true);
  });
});
