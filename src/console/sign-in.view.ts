/** The pages of people not signed in: sign in, the second factor, set a password from a one-time link. */
import { html, type SafeHtml } from '../http/html.ts';
import type { Flash } from '../users/sessions.service.ts';
import { plainPage, sentence } from './layout.ts';

/** The sign-in form. */
export function signInPage(opts: { token: string; next: string; email?: string; flash?: Flash }): string {
  const body: SafeHtml = html`<form method="post" action="/console/sign-in" class="card" novalidate>
      <input type="hidden" name="_csrf" value="${opts.token}" />
      <input type="hidden" name="next" value="${opts.next}" />
      <div class="field">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}" />
      </div>
      <div class="field">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
      </div>
      <button type="submit">Sign in</button>
    </form>
    <p class="muted">Forgot your password? <a href="/console/forgot-password">Reset it by email</a>.</p>`;
  return plainPage('Sign in', body, opts.flash);
}

/** The second-factor form, after a correct password: the app's code, or (`recovery`) one of the recovery codes. */
export function secondFactorPage(opts: {
  token: string;
  next: string;
  recovery?: boolean;
  flash?: Flash;
}): string {
  const other = `/console/sign-in/two-factor?${new URLSearchParams(
    opts.recovery ? { next: opts.next } : { next: opts.next, recovery: '' },
  ).toString()}`;
  const field = opts.recovery
    ? html`<div class="field">
        <label for="code">Recovery code</label>
        <input id="code" name="code" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" required aria-describedby="code-hint" />
        <p class="hint" id="code-hint">One of the codes you saved when you set up two-factor authentication, like 4f7k2-q9xbm. Each works once.</p>
      </div>
      <input type="hidden" name="recovery" value="yes" />`
    : html`<div class="field">
        <label for="code">Authentication code</label>
        <input
          id="code"
          name="code"
          type="text"
          inputmode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9 ]*"
          required
          aria-describedby="code-hint"
        />
        <p class="hint" id="code-hint">The 6-digit code your authenticator app shows for Sealpost.</p>
      </div>`;
  const body = html`<form method="post" action="/console/sign-in/two-factor" class="card" novalidate>
      <input type="hidden" name="_csrf" value="${opts.token}" />
      <input type="hidden" name="next" value="${opts.next}" />
      ${field}
      <button type="submit">Verify</button>
    </form>
    <p>
      <a href="${other}">${opts.recovery ? 'Use the code from your app instead' : 'Lost your phone? Use a recovery code'}</a>
    </p>
    <form method="post" action="/console/sign-out">
      <input type="hidden" name="_csrf" value="${opts.token}" /><button type="submit" class="secondary">Cancel</button>
    </form>`;
  return plainPage(
    opts.recovery ? 'Sign in with a recovery code' : 'Two-factor authentication',
    body,
    opts.flash,
  );
}

/** The set-password form of a one-time link (first password, reset, invitation). */
export function setPasswordPage(opts: { linkToken: string; email: string; flash?: Flash }): string {
  const body = html`<p>Choose a password for <strong>${opts.email}</strong>.</p>
    <form method="post" action="/console/set-password" class="card" novalidate>
      <input type="hidden" name="token" value="${opts.linkToken}" />
      <input type="hidden" name="username" value="${opts.email}" autocomplete="username" />
      <div class="field">
        <label for="password">New password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minlength="10"
          aria-describedby="password-hint"
        />
        <p class="hint" id="password-hint">At least 10 characters. A passphrase of several words is easy to remember and hard to guess.</p>
      </div>
      <div class="field">
        <label for="confirm">Repeat the password</label>
        <input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
      </div>
      <button type="submit">Set password</button>
    </form>`;
  return plainPage('Set your password', body, opts.flash);
}

/** A page for someone not signed in that only says something (a link that no longer works, a refused form). */
export function messagePage(title: string, text: string, link?: { href: string; label: string }): string {
  return plainPage(
    title,
    html`<p>${sentence(text)}</p>
      ${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}`,
  );
}

/** The "forgot password" form. */
export function forgotPasswordPage(opts: { token: string; flash?: Flash }): string {
  const body = html`<p>Enter the email address you sign in with. If it belongs to a user, a link to choose a new password is sent to it.</p>
    <form method="post" action="/console/forgot-password" class="card" novalidate>
      <input type="hidden" name="_csrf" value="${opts.token}" />
      <div class="field">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
      </div>
      <button type="submit">Send reset link</button>
    </form>
    <p><a href="/console/sign-in">Back to sign-in</a></p>`;
  return plainPage('Reset your password', body, opts.flash);
}
