/**
 * The idle timeout in Chromium: the offer to stay signed in before it ends, and a mailing written past it kept and
 * filled in again after signing in, instead of lost.
 */
import { describe, expect, it } from 'vitest';
import { checkPage, consoleBrowserTestBed, signedInPage } from './browser.test-support.ts';
import { createTestUser, TEST_PASSWORD } from './console.test-support.ts';

const IDLE_SECONDS = 20;
const rig = consoleBrowserTestBed({ config: { consoleIdleTimeoutSeconds: IDLE_SECONDS } });

describe('an idle console session', () => {
  it('offers to stay signed in, and keeps a mailing posted after the session ended', async () => {
    const { t, a, browser, base } = rig;
    const editor = await createTestUser(t, a.account.customer_id, 'editor');
    const page = await signedInPage(browser, base, editor.email);
    await page.goto(`${base}/console/campaigns`);
    await page.getByLabel('Subject').fill('Flu shots are here');
    await page.getByLabel('From address').fill(`news@${a.domain}`);
    await page.getByRole('radio', { name: 'HTML (expert)' }).check();
    await page.getByLabel('HTML', { exact: true }).fill('<p>Sixteen minutes of writing</p>');

    // Half the timeout later the page offers to stay signed in; accepting it is a request that keeps the session.
    const dialog = page.getByRole('alertdialog', { name: 'Your session is ending' });
    await dialog.waitFor({ timeout: IDLE_SECONDS * 1000 });
    await checkPage(page, 'session-ending');
    const kept = page.waitForResponse((r) => r.url().endsWith('/console/session/keep-alive'));
    await dialog.getByRole('button', { name: 'Stay signed in' }).click();
    expect((await kept).status()).toBe(204);
    const keptAt = Date.now();
    await dialog.waitFor({ state: 'hidden' });
    // A session's activity is written at most every tenth of the timeout: another request may have just done it.
    const rows = await t.ctx.database.db.selectFrom('console_sessions').select('last_seen_at').execute();
    expect(rows.some((r) => Number(r.last_seen_at) >= keptAt - IDLE_SECONDS * 100 - 1000)).toBe(true);

    // The session then goes idle past the timeout (as after a long pause); "Save" is kept, not lost.
    await t.ctx.database.db
      .updateTable('console_sessions')
      .set({ last_seen_at: Date.now() - (IDLE_SECONDS + 5) * 1000 })
      .execute();
    await page.getByRole('button', { name: 'Save mailing' }).click();
    await page.getByText('Your session expired, so nothing was saved yet.').waitFor();
    await checkPage(page, 'session-expired-sign-in');
    await page.getByLabel('Email').fill(editor.email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('What you typed before your session expired is filled in again').waitFor();
    expect(page.url()).toBe(`${base}/console/campaigns`);
    expect(await page.getByLabel('Subject').inputValue()).toBe('Flu shots are here');
    expect(await page.getByLabel('HTML', { exact: true }).inputValue()).toBe(
      '<p>Sixteen minutes of writing</p>',
    );
    await checkPage(page, 'session-draft-restored');
    await page.getByRole('button', { name: 'Save mailing' }).click();
    await page.getByText('The mailing was saved.').waitFor();

    // The draft was handed over once: opening the same address again fills nothing in.
    expect(await t.ctx.database.db.selectFrom('console_drafts').select('id').execute()).toHaveLength(0);
  }, 90_000);
});
