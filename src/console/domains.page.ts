/**
 * Sending domains at `/console/domains`: the list, adding a domain, and one domain's page with the DNS records to
 * publish (ownership, DKIM, SPF and DMARC advice), each with a copy button, and "Verify" with a result per record.
 * Owners and admins add and verify; everyone in the account may read.
 */
import { promises as nodeDns } from 'node:dns';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import {
  accountDomains,
  addDomain,
  getDomainRow,
  verifyDomain,
  type DkimSigning,
} from '../accounts/domains.service.ts';
import {
  checkDomainRecords,
  dnsRecords,
  REQUIRED_PURPOSES,
  sendingHostOf,
  type SpfTarget,
  type DnsCheck,
  type DnsRecord,
  type TxtResolver,
} from '../accounts/dns-checks.ts';
import { html, type SafeHtml } from '../http/html.ts';
import { csrfField } from './layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from './page.ts';
import { field, when } from './format.ts';
import type { ConsoleDeps } from './console.routes.ts';
import { Form, NoFields, Text } from './action.schemas.ts';

const PURPOSE: Record<DnsRecord['purpose'], string> = {
  verification: 'Ownership (required)',
  dkim: 'DKIM signing key (required)',
  spf: 'SPF (advised)',
  dmarc: 'DMARC (advised)',
};

function sendingHost(ctx: AppContext): SpfTarget {
  return sendingHostOf(ctx.config);
}

function recordsTable(records: DnsRecord[], checks?: DnsCheck[]): SafeHtml {
  return html`<div class="table-wrap">
    <table>
      <thead>
        <tr>
          <th scope="col">Purpose</th>
          <th scope="col">Type and name</th>
          <th scope="col">Value</th>
          ${checks ? html`<th scope="col">Found in DNS</th>` : ''}
        </tr>
      </thead>
      <tbody>
        ${records.map((r, i) => {
          const check = checks?.[i];
          return html`<tr>
            <td>${PURPOSE[r.purpose]}</td>
            <td>
              ${r.type} <code id="rec-name-${i}" class="mono">${r.name}</code>
              <button type="button" data-copy="rec-name-${i}" aria-label="Copy name of the ${r.purpose} record">Copy</button>
            </td>
            <td>
              <code id="rec-value-${i}" class="mono">${r.value}</code>
              <button type="button" data-copy="rec-value-${i}" aria-label="Copy value of the ${r.purpose} record">Copy</button>
              ${r.note ? html`<br /><span class="muted">${r.note}</span>` : ''}
            </td>
            ${
              check
                ? html`<td>
                    ${check.ok ? html`<strong>Found</strong>` : html`<strong class="error-text">Not found</strong>`}
                    <br /><span class="muted">${check.detail}</span>
                  </td>`
                : ''
            }
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

/** Registers the domains pages. */
export function domainPages(app: FastifyInstance, ctx: AppContext, deps: ConsoleDeps = {}): void {
  const resolver: TxtResolver = deps.dns ?? nodeDns;
  registerDomainsPage(app, ctx);
  registerAddDomain(app, ctx);
  registerDomainPage(app, ctx, resolver);
}

/** Registers the list of the account's domains, with the add form for `manage_settings`. */
function registerDomainsPage(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, {
    path: '/console/domains',
    permission: 'read',
    title: 'Domains',
    render: async (c) => {
      const domains = await accountDomains(c.ctx.database.db, c.account.customer_id);
      return html`<div class="card">
          ${
            domains.length === 0
              ? html`<p>No domains yet. Add the domain your mail is sent from.</p>`
              : html`<ul>
                  ${domains.map(
                    (d) =>
                      html`<li>
                        <a href="/console/domains/${d.domain}">${d.domain}</a> —
                        ${d.verified ? `verified ${when(d.verified_at)}` : 'not verified yet'}
                      </li>`,
                  )}
                </ul>`
          }
        </div>
        ${c.can('manage_settings') ? addDomainForm(c) : ''}`;
    },
  });
}

/** The form that adds a domain with its choice of DKIM signing. */
function addDomainForm(c: ConsoleContext): SafeHtml {
  return html`<form class="card" method="post" action="/console/domains">
    <h2>Add a domain</h2>
    ${csrfField(c.csrfToken)}
    <div class="field">
      <label for="domain-name">Domain name</label>
      <input id="domain-name" name="domain" required placeholder="clinic.example" autocomplete="off" />
    </div>
    <div class="field">
      <label for="domain-dkim">DKIM signing</label>
      <select id="domain-dkim" name="dkim">
        <option value="rsa" selected>RSA (understood by every receiver)</option>
        <option value="both">RSA and Ed25519 (two signatures)</option>
        <option value="ed25519">Ed25519 only (receivers without Ed25519 see no valid signature)</option>
      </select>
    </div>
    <button type="submit" class="button">Add domain</button>
  </form>`;
}

/** Registers the action that adds a domain. */
function registerAddDomain(app: FastifyInstance, ctx: AppContext): void {
  consoleAction(app, ctx, {
    path: '/console/domains',
    permission: 'manage_settings',
    body: Form({ domain: Text(), dkim: Text() }),
    back: () => '/console/domains',
    handle: async (c) => {
      const d = await addDomain(
        c.ctx.database.db,
        c.ctx.sealer,
        c.account.customer_id,
        field(c, 'domain'),
        c.by,
        { dkim: (field(c, 'dkim') || 'rsa') as DkimSigning },
      );
      return {
        redirect: `/console/domains/${d.domain}`,
        flash: `${d.domain} is added. Publish its records, then verify.`,
      };
    },
  });
}

/** A domain's state and the records to publish; after a verification, what was found for each record. */
async function domainBody(c: ConsoleContext, checks?: DnsCheck[]): Promise<SafeHtml> {
  const row = await getDomainRow(c.ctx.database.db, c.account.customer_id, c.params.name!);
  const records = dnsRecords(row, sendingHost(c.ctx));
  return html`<div class="card">
      <h2>${row.name}</h2>
      <p>
        ${
          row.verified === 1
            ? html`<strong>Verified</strong> ${when(row.verified_at)}. Mail may be sent from this domain.`
            : 'Not verified yet: publish the two required records at your DNS provider, then press Verify.'
        }
      </p>
      ${recordsTable(records, checks)}
      <p class="hint">DNS changes can take from minutes to hours to be visible everywhere.</p>
      ${
        c.can('manage_settings')
          ? html`<form method="post" action="/console/domains/${row.name}/verify">
              ${csrfField(c.csrfToken)}
              <button type="submit" class="button">Verify</button>
            </form>`
          : ''
      }
    </div>
    <p><a href="/console/domains">All domains</a></p>`;
}

/**
 * Registers one domain's page and its Verify action, which looks the records up through `resolver`. The action
 * redirects to the page with `?checked`, where the lookups are shown (looked up again: a lookup changes nothing).
 */
function registerDomainPage(app: FastifyInstance, ctx: AppContext, resolver: TxtResolver): void {
  consolePage(app, ctx, {
    path: '/console/domains/:name',
    permission: 'read',
    title: 'Domain',
    render: async (c) => {
      if (c.query.checked === undefined) return domainBody(c);
      const row = await getDomainRow(c.ctx.database.db, c.account.customer_id, c.params.name!);
      return domainBody(c, await checkDomainRecords(resolver, row, sendingHost(c.ctx)));
    },
  });

  consoleAction(app, ctx, {
    path: '/console/domains/:name/verify',
    permission: 'manage_settings',
    body: NoFields,
    back: (c) => `/console/domains/${encodeURIComponent(c.params.name ?? '')}`,
    handle: async (c) => {
      const db = c.ctx.database.db;
      const row = await getDomainRow(db, c.account.customer_id, c.params.name!);
      const host = sendingHost(c.ctx);
      const checks = await checkDomainRecords(resolver, row, host);
      const ready = checks.every((k) => !REQUIRED_PURPOSES.includes(k.purpose) || k.ok);
      if (ready)
        await verifyDomain(db, resolver, c.account.customer_id, row.name, c.by, { sendingHost: host });
      return {
        redirect: `/console/domains/${encodeURIComponent(row.name)}?checked`,
        flash: ready
          ? { kind: 'success', text: `Both required records were found: ${row.name} is verified.` }
          : { kind: 'error', text: 'Not verified: a required record was not found in DNS.' },
      };
    },
  });
}
