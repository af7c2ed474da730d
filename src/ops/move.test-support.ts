/** Test helpers for moves: data of every kind created through the API, and the answers to compare before and after. */
import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { TestAccount, TestApp } from '../test/harness.ts';
import { message, postJson } from '../email/email.test-support.ts';
import { createForm, GOOD } from '../forms/forms.test-support.ts';
import { makeList, makeSubscriber, marketingClient } from '../marketing/marketing.test-support.ts';
import { makeMailing } from '../marketing/mailings/mailings.test-support.ts';
import { multipart } from '../test/multipart.ts';
import { createTestUser } from '../console/console.test-support.ts';
import { addSuppression } from '../accounts/suppressions.service.ts';
import sharp from 'sharp';

/** What the seeding made: the GET requests whose answers must not change, and a console user's email. */
export interface Seeded {
  urls: string[];
  userEmail: string;
  /** The list the first subscribers joined. */
  listId: string;
}

/**
 * Messages, a template, a form with submissions, lists, subscribers, a mailing and its send, a webhook, a suppressed
 * address, a custom field, a dynamic list, a drip and a user.
 */
export async function seedEverything(t: TestApp, a: TestAccount): Promise<Seeded> {
  const email = await seedEmail(t, a);
  const form = await seedForm(t, a);
  const call = marketingClient(t, a);
  const audience = await seedAudience(call, a);
  const campaign = await seedCampaign(call, a, audience.list);
  const hook = await seedWebhookAndSuppression(t, a);
  const marketing = await seedSegmentsAndDrip(call);
  const image = await seedImage(call);
  const user = await createTestUser(t, a.account.customer_id, 'owner', { canReadProtected: true });
  return {
    userEmail: user.email,
    listId: audience.list,
    urls: seededUrls(`/v1/marketing/${a.account.username}`, {
      email,
      form,
      audience,
      campaign,
      hook,
      marketing,
      image,
    }),
  };
}

/** A WebP image in the library, set as the logo: its id and its public path. */
async function seedImage(call: Call) {
  const webp = await sharp({ create: { width: 64, height: 32, channels: 4, background: '#0b5c7a80' } })
    .webp()
    .toBuffer();
  const res = await call('POST', '/images', { name: 'logo.webp', content: webp.toString('base64') });
  expect(res.statusCode, res.body).toBe(200);
  const img = res.json().data as { id: string; url: string };
  const set = await call('PATCH', '/settings', {
    settings: { brand_logo_image_id: img.id, brand_color: '#0b5c7a' },
  });
  expect(set.statusCode, set.body).toBe(200);
  return { id: img.id, path: new URL(img.url).pathname };
}

type Call = ReturnType<typeof marketingClient>;

/** Three sent messages and a dynamic template whose body has tabs, line ends and backslashes. */
async function seedEmail(t: TestApp, a: TestAccount) {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await postJson(t, '/v1/email/messages', a.auth, {
      data: {
        message: message(`clinic@${a.domain}`, { headers: { subject: `m${i}`, from: `clinic@${a.domain}` } }),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    ids.push(res.json().sourceTrackingId as string);
  }
  const m = multipart([
    { name: 'data[name]', value: 'welcome' },
    // Tabs, line ends and backslashes travel through the copy's text format unchanged.
    {
      name: 'data[body]',
      value: '<p>Hello {{name}}</p>\r\n\t<p>C:\\path \\N</p>',
      filename: 'w.hbs',
      type: 'text/plain',
    },
  ]);
  const tpl = await t.app.inject({
    method: 'POST',
    url: '/v1/email/dynamic_templates',
    headers: { ...a.auth, ...m.headers },
    payload: m.payload,
  });
  expect(tpl.statusCode, tpl.body).toBe(200);
  expect(tpl.json().body).toContain('\t<p>C:\\path \\N</p>');
  return { ids, templateId: String(tpl.json().id) };
}

/** A form with two submissions; returns its id. */
async function seedForm(t: TestApp, a: TestAccount): Promise<string> {
  const form = await createForm(t.app, a.auth);
  for (const name of ['Ada', 'Grace']) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/forms/api/forms/${form}/submissions`,
      payload: { form_data: { ...GOOD, name } },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  return form;
}

/** A list with two subscribers, a double opt-in public list with a member still to confirm, and the postal address. */
async function seedAudience(call: Call, a: TestAccount) {
  const list = await makeList(call, 'Patients');
  const ann = await makeSubscriber(call, 'ann@patients.example', { first_name: 'Ann' }, list);
  await makeSubscriber(call, 'bob@patients.example', { first_name: 'Bob' }, list);
  // A double opt-in public list with a member still to confirm, and the account's postal address.
  const optIn = await makeList(call, 'Newsletter');
  const patched = await call('PATCH', `/subscription_lists/${optIn}/settings`, {
    double_opt_in: true,
    public: true,
    confirm_from_email: `news@${a.domain}`,
  });
  expect(patched.statusCode, patched.body).toBe(200);
  const cy = await makeSubscriber(call, 'cy@patients.example', { first_name: 'Cy' }, optIn);
  const settings = await call('PATCH', '/settings', {
    settings: { postal_address: '1 Harbour Road, Leith' },
  });
  expect(settings.statusCode, settings.body).toBe(200);
  return { list, ann, optIn, cy };
}

/** A mailing and its send to `list`. */
async function seedCampaign(call: Call, a: TestAccount, list: string) {
  const mailing = await makeMailing(call, 'News', { from_email: `news@${a.domain}`, from_name: 'Clinic' });
  const send = await call('POST', '/campaign_mailing_sends', {
    campaign_mailing_id: mailing,
    campaign_mailing_send: {
      from_email: `news@${a.domain}`,
      from_name: 'Clinic',
      subscription_list_id: list,
    },
  });
  expect(send.statusCode, send.body).toBe(200);
  return { mailing, sendId: String(send.headers['sealpost-campaign-mailing-send-id']) };
}

/** A webhook endpoint and a suppressed address; returns the endpoint's id. */
async function seedWebhookAndSuppression(t: TestApp, a: TestAccount): Promise<string> {
  const hook = await postJson(t, '/v1/email/webhook_endpoints', a.auth, {
    target_url: 'http://127.0.0.1:8999/in',
    events: ['api_mail_log_delivered'],
  });
  expect(hook.statusCode, hook.body).toBe(201);
  await addSuppression(t.ctx, a.account.customer_id, 'gone@patients.example', 'a hard bounce');
  return String(hook.json().id);
}

/** A custom field, a dynamic list on it, and a drip. */
async function seedSegmentsAndDrip(call: Call) {
  const field = await call('POST', '/subscriber_custom_field_types', {
    subscriber_custom_field_type: { name: 'plan' },
  });
  expect(field.statusCode, field.body).toBe(200);
  const segment = await call('POST', '/dynamic_lists', {
    name: 'Gold plan',
    filters: [[{ field: 'custom_field:plan', op: 'is', terms: ['gold'] }]],
  });
  expect(segment.statusCode, segment.body).toBe(200);
  const drip = await call('POST', '/drip_campaigns', { drip_campaign: { name: 'Welcome series' } });
  expect(drip.statusCode, drip.body).toBe(200);
  return { segmentId: String(segment.json().data.id), dripId: String(drip.json().data.id) };
}

/** The ids the seeding steps made. */
interface SeededIds {
  email: Awaited<ReturnType<typeof seedEmail>>;
  form: string;
  audience: Awaited<ReturnType<typeof seedAudience>>;
  campaign: Awaited<ReturnType<typeof seedCampaign>>;
  hook: string;
  marketing: Awaited<ReturnType<typeof seedSegmentsAndDrip>>;
  image: Awaited<ReturnType<typeof seedImage>>;
}

/** The GET requests whose answers must not change; `mk` is the marketing prefix of the account. */
function seededUrls(mk: string, x: SeededIds): string[] {
  const { email, form, audience, campaign, hook, marketing, image } = x;
  return [
    ...email.ids.map((id) => `/v1/email/message_receipt?sourceTrackingId=${id}`),
    '/v1/email/dynamic_templates',
    `/v1/email/dynamic_templates/${email.templateId}`,
    '/v1/forms/api/forms',
    `/v1/forms/api/forms/${form}`,
    `/v1/forms/api/forms/${form}/submissions`,
    `${mk}/subscription_lists`,
    `${mk}/subscribers`,
    `${mk}/subscribers/${audience.ann}`,
    `${mk}/subscribers/${audience.cy}`,
    `${mk}/subscription_lists/${audience.optIn}`,
    `${mk}/subscriptions`,
    `${mk}/settings`,
    `${mk}/campaign_mailings/${campaign.mailing}`,
    `${mk}/campaign_mailing_sends`,
    '/v1/email/webhook_endpoints',
    `/v1/email/webhook_endpoints/${hook}`,
    '/v1/email/suppressions',
    '/v1/email/suppressions/gone@patients.example',
    '/v1/forms/api/forms/stats',
    `${mk}/campaign_mailings`,
    `${mk}/campaign_mailing_sends/${campaign.sendId}`,
    `${mk}/analytics/campaign_mailing_sends_table`,
    `${mk}/subscriber_custom_field_types`,
    `${mk}/dynamic_lists`,
    `${mk}/dynamic_lists/${marketing.segmentId}`,
    `${mk}/drip_campaigns`,
    `${mk}/drip_campaigns/${marketing.dripId}`,
    `${mk}/images`,
    `${mk}/images/${image.id}`,
    image.path,
    `${mk}/lists`,
    `${mk}/current_customer`,
  ];
}

/** Status and body of each GET, with the account's key (marketing routes take either header form). */
export async function answers(app: FastifyInstance, a: TestAccount, urls: string[]) {
  const out: Record<string, { status: number; body: unknown }> = {};
  for (const url of urls) {
    const res = await app.inject({ method: 'GET', url, headers: a.auth });
    const body = String(res.headers['content-type'] ?? '').startsWith('image/')
      ? res.rawPayload.toString('base64')
      : res.body.startsWith('{')
        ? res.json()
        : res.body;
    out[url] = { status: res.statusCode, body };
  }
  return out;
}
