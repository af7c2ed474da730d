/**
 * The two-factor settings page: set up TOTP with a QR code, turn it off, see how many recovery codes are left and make
 * a new set (shown once), and (owners) make it mandatory for the account.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import {
  confirmTotpEnrolment,
  disableTotp,
  pendingEnrolment,
  renewRecoveryCodes,
  setTotpRequired,
  startTotpEnrolment,
  totpRequired,
} from '../users/totp.service.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { csrfField } from './layout.ts';
import { consoleAction, consolePage, TWO_FACTOR_PATH, type ConsoleContext } from './page.ts';
import { Form, NoFields, Text } from './action.schemas.ts';
import { RECOVERY_CODE_COUNT, recoveryCodesLeft } from '../users/recovery-codes.service.ts';
import { revealLater, shownOncePage } from './shown-once.ts';

const CODES_PATH = `${TWO_FACTOR_PATH}/recovery-codes`;

function codeField(id: string): SafeHtml {
  return html`<div class="field">
    <label for="${id}">Code from the app</label>
    <input id="${id}" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required />
  </div>`;
}

/** The recovery codes card of a user with two-factor on: how many are left, and the form that makes a new set. */
async function recoverySection(c: ConsoleContext): Promise<SafeHtml> {
  const left = await recoveryCodesLeft(c.ctx.database.db, c.user.id);
  const status =
    left === 0
      ? html`<p class="flash flash-info" role="status">
          You have no recovery codes left. Make a set now, so a lost phone does not lock you out.
        </p>`
      : html`<p><strong>${left} of ${RECOVERY_CODE_COUNT}</strong> recovery codes left.</p>`;
  return html`<div class="card" role="region" aria-labelledby="recovery-heading">
    <h2 id="recovery-heading">Recovery codes</h2>
    <p>If you lose your phone, sign in with one of your recovery codes instead of a code from the app. Each code works once.</p>
    ${status}
    <form method="post" action="${CODES_PATH}">
      ${csrfField(c.csrfToken)} ${codeField('codes-code')}
      <p class="muted">A new set replaces the old one: codes you saved before stop working.</p>
      <button type="submit" class="secondary">Make new recovery codes</button>
    </form>
  </div>`;
}

/** The page that shows a new set of recovery codes, once. */
function codesShown(codes: string[]): SafeHtml {
  return html`<div class="card" role="region" aria-labelledby="codes-heading">
    <h2 id="codes-heading">Your recovery codes</h2>
    <p class="flash flash-info">
      <strong>Save these codes now. They are shown only this once:</strong> Sealpost keeps only a hash of each and cannot show
      them again.
    </p>
    <p>Print them, write them down or keep them in your password manager, away from your phone. Each code signs you in once when you cannot use your authenticator app.</p>
    <ol id="recovery-codes" class="recovery-codes">
      ${codes.map((code) => html`<li><code>${code}</code></li>`)}
    </ol>
    <p><button type="button" data-copy="recovery-codes">Copy codes</button></p>
    <p><a href="${TWO_FACTOR_PATH}">Back to two-factor authentication</a></p>
  </div>`;
}

async function ownSection(c: ConsoleContext, required: boolean): Promise<SafeHtml> {
  if (c.user.totpEnabled)
    return html`<div class="card">
      <p><strong>Two-factor authentication is on.</strong> Signing in asks for a code from your authenticator app.</p>
      ${
        required
          ? html`<p class="muted">This account requires it, so it cannot be turned off.</p>`
          : html`<form method="post" action="${TWO_FACTOR_PATH}/disable">
              ${csrfField(c.csrfToken)} ${codeField('disable-code')}
              <button type="submit" class="secondary">Turn off two-factor</button>
            </form>`
      }
    </div>`;
  const pending = await pendingEnrolment(c.ctx.database.db, c.ctx.sealer, c.user);
  if (!pending)
    return html`<div class="card">
      ${required ? html`<p class="flash flash-info" role="status">This account requires two-factor authentication. Set it up to continue.</p>` : ''}
      <p>Two-factor authentication is off. With it on, signing in also asks for a code from an authenticator app on your phone.</p>
      <form method="post" action="${TWO_FACTOR_PATH}/start">${csrfField(c.csrfToken)}<button type="submit">Set up two-factor</button></form>
    </div>`;
  return html`<div class="card">
    <h2>Set up two-factor</h2>
    <ol>
      <li>Open an authenticator app on your phone and add an account by scanning this code:</li>
    </ol>
    <img class="qr" src="${pending.qrDataUri}" alt="QR code for your authenticator app" width="192" height="192" />
    <p>
      Or type this key: <code id="totp-key">${pending.secret}</code>
      <button type="button" class="secondary" data-copy="totp-key">Copy</button>
    </p>
    <ol start="2">
      <li>Enter the 6-digit code the app now shows.</li>
    </ol>
    <form method="post" action="${TWO_FACTOR_PATH}/enable">
      ${csrfField(c.csrfToken)} ${codeField('enable-code')}<button type="submit">Turn on</button>
    </form>
  </div>`;
}

/** Registers the action that makes a new set of recovery codes, and the page that shows a set once. */
function recoveryCodePages(app: FastifyInstance, ctx: AppContext): void {
  const db = ctx.database.db;
  consoleAction(app, ctx, {
    path: CODES_PATH,
    permission: 'read',
    body: Form({ code: Text(64) }),
    back: () => TWO_FACTOR_PATH,
    handle: async (c) => {
      const codes = await renewRecoveryCodes(db, ctx.config, ctx.sealer, c.user, c.form.code ?? '', c.ip);
      return {
        redirect: `${CODES_PATH}/${await revealLater(c, 'recovery_codes', codes)}`,
        flash: 'New recovery codes are made; the old ones no longer work.',
      };
    },
  });
  shownOncePage<string[]>(app, ctx, {
    path: `${CODES_PATH}/:token`,
    permission: 'read',
    title: 'Recovery codes',
    kind: 'recovery_codes',
    render: (_c, codes) => codesShown(codes),
    spent: 'These recovery codes were already shown; if you did not save them, make a new set.',
    expired: 'This page has expired, so the codes cannot be shown; if you did not save them, make a new set.',
    back: () => ({ href: TWO_FACTOR_PATH, label: 'Back to two-factor authentication' }),
  });
}

/** Registers the two-factor settings page and its actions. */
export function twoFactorPages(app: FastifyInstance, ctx: AppContext): void {
  const db = ctx.database.db;
  recoveryCodePages(app, ctx);
  consolePage(app, ctx, {
    path: TWO_FACTOR_PATH,
    permission: 'read',
    title: 'Two-factor authentication',
    render: async (c) => {
      const required = await totpRequired(db, c.account.customer_id);
      // An owner who must still set up two-factor sees only the set-up, not the rule it is held to.
      const rule =
        c.can('manage_users') && (c.user.totpEnabled || !required)
          ? html`<div class="card">
            <h2>For everyone in ${c.account.username}</h2>
            <form method="post" action="${TWO_FACTOR_PATH}/require">
              ${csrfField(c.csrfToken)}
              <input type="hidden" name="required" value="${required ? 'no' : 'yes'}" />
              <p>
                ${required ? 'Two-factor authentication is required for every user of the account.' : 'Two-factor authentication is optional.'}
              </p>
              <button type="submit" class="secondary">${required ? 'Make it optional' : 'Require it for everyone'}</button>
            </form>
          </div>`
          : '';
      const recovery = c.user.totpEnabled ? await recoverySection(c) : '';
      return html`${await ownSection(c, required)}${recovery}${rule}`;
    },
  });
  consoleAction(app, ctx, {
    path: `${TWO_FACTOR_PATH}/start`,
    permission: 'read',
    body: NoFields,
    back: () => TWO_FACTOR_PATH,
    handle: async (c) => {
      await startTotpEnrolment(db, ctx.sealer, c.user);
      return { redirect: TWO_FACTOR_PATH };
    },
  });
  consoleAction(app, ctx, {
    path: `${TWO_FACTOR_PATH}/enable`,
    permission: 'read',
    body: Form({ code: Text(64) }),
    back: () => TWO_FACTOR_PATH,
    handle: async (c) => {
      const codes = await confirmTotpEnrolment(db, ctx.config, ctx.sealer, c.user, c.form.code ?? '', c.ip);
      return {
        redirect: `${CODES_PATH}/${await revealLater(c, 'recovery_codes', codes)}`,
        flash: 'Two-factor authentication is on.',
      };
    },
  });
  consoleAction(app, ctx, {
    path: `${TWO_FACTOR_PATH}/disable`,
    permission: 'read',
    body: Form({ code: Text(64) }),
    back: () => TWO_FACTOR_PATH,
    handle: async (c) => {
      await disableTotp(db, ctx.config, ctx.sealer, c.user, c.form.code ?? '', c.ip);
      return { redirect: TWO_FACTOR_PATH, flash: 'Two-factor authentication is off.' };
    },
  });
  consoleAction(app, ctx, {
    path: `${TWO_FACTOR_PATH}/require`,
    permission: 'manage_users',
    body: Form({ required: Text(8) }),
    back: () => TWO_FACTOR_PATH,
    handle: async (c) => {
      const required = c.form.required === 'yes';
      await setTotpRequired(db, c.account.customer_id, required, c.actor, c.ip);
      return {
        redirect: TWO_FACTOR_PATH,
        flash: required
          ? 'Every user must now use two-factor authentication.'
          : 'Two-factor authentication is optional.',
      };
    },
  });
}
