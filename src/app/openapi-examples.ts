/**
 * Request and response examples of the most used operations, written out from real answers of this server; those of
 * the other operations were recorded from real requests and answers (a clinic's account with lists, subscribers, a
 * sent campaign, a drip, a form, a webhook endpoint and a suppressed address) into openapi-examples.recorded.json.
 * They are added to the served document for every prefix an operation is served under; a test checks each against its
 * operation's schema, and that no operation lacks one.
 */
import recorded from './openapi-examples.recorded.json' with { type: 'json' };
import { SCHEDULE_EXAMPLES } from './openapi-examples.schedule.ts';

/** An example request body and/or response bodies by status, for the operations whose path ends with `path`. */
export interface OperationExample {
  method: string;
  path: RegExp;
  request?: unknown;
  responses?: Record<string, unknown>;
}

const AT = '2026-01-31T09:30:00.000Z';
const TRACKING_ID = '019c1a2b-3c4d-7e5f-8a9b-0c1d2e3f4a5b';
/**
 * Lists, mailings and sends are named by an integer id with their UUID beside it, subscribers by their UUID: the
 * default list, a list, a subscriber, a mailing and its send (the recorded examples go on from these ids).
 */
const DEFAULT_LIST = { id: 1, uuid: '01a2114c-6ec3-7838-8213-6158ded45d9a' };
const LIST = { id: 2, uuid: '01a2114c-6ec8-79b0-add2-9b143531c484' };
const SUBSCRIBER_ID = '01a2114c-6ee8-7c81-89aa-6f560a3712df';
const MAILING = { id: 1, uuid: '01a2114c-6f19-79f5-a3f2-78a015502718' };
const SEND = { id: 1, uuid: '01a2114c-6f58-77e0-935e-ee3d629d83a1' };
const TEMPLATE = {
  id: '1',
  name: 'welcome',
  body: '<p>Hello {{first_name}}</p>',
  content_blocks: null,
  api_customer_id: 1,
  created_at: AT,
  updated_at: AT,
};
/** A subscriber as a create or a list answers it. */
const SUBSCRIBER_SHORT = {
  id: SUBSCRIBER_ID,
  type: 'subscriber',
  attributes: {
    email: 'ann@patients.example',
    unsubscribed: false,
    first_name: 'Ann',
    last_name: null,
    full_name: 'Ann',
    created_at: AT,
  },
};
/** The same subscriber read by id. */
const SUBSCRIBER = {
  ...SUBSCRIBER_SHORT,
  attributes: {
    ...SUBSCRIBER_SHORT.attributes,
    phone_number: null,
    phone_number_input: null,
    updated_at: AT,
    custom_fields: [],
    subscription_lists: [
      { ...DEFAULT_LIST, name: 'All contacts', unsubscribed: false },
      { ...LIST, name: 'Patients', unsubscribed: false },
    ],
  },
};
const ENDPOINT = {
  id: 'we_1421dd1f07415103a6b5576d',
  target_url: 'https://hooks.clinic.example/sealpost',
  events: ['api_mail_log_delivered'],
  active: true,
  disabled_at: null,
  disabled_reason: null,
  failure_streak: 0,
  previous_signing_key_active: false,
  created_at: AT,
  updated_at: AT,
};

const MAILING_FULL = {
  ...MAILING,
  type: 'campaign_mailing',
  attributes: {
    subject: 'News',
    template_type: 'html',
    created_at: AT,
    updated_at: AT,
    sent_count: 0,
    delivered_count: 0,
    viewed_count: 0,
    clicked_count: 0,
    bounced_count: 0,
    unsubscribed_count: 0,
    html_part: '<p>Hello {{first_name}}</p>',
    text_part: null,
    from_email: 'news@clinic.example.com',
    from_name: 'Clinic',
    content_blocks: null,
  },
};

/** The examples. */
export const EXAMPLES: OperationExample[] = [
  {
    method: 'post',
    path: /\/messages$/,
    request: {
      data: {
        message: {
          recipients: ['patient@example.org'],
          headers: { subject: 'Your appointment', from: 'desk@clinic.example.com' },
          content: { 'text/plain': 'Your appointment is on Monday at 9:30.' },
        },
      },
    },
    responses: { '200': { sourceTrackingId: TRACKING_ID, data: 'Service OK' } },
  },
  {
    method: 'get',
    path: /\/message_receipt$/,
    responses: {
      '200': {
        sourceTrackingId: TRACKING_ID,
        data: {
          message: {
            id: `<${TRACKING_ID}@clinic.example.com>`,
            message_deliveries: [
              {
                recipient: 'patient@example.org',
                status: {
                  deliveryStatus: 'delivered',
                  deliveryTime: 'Sat, 31 Jan 2026 09:30:02 +0000',
                  openedStatus: 'not opened',
                  openedTime: '',
                },
              },
            ],
            total_opens: 0,
            distinct_opens: 0,
            total_click_count: 0,
            clicks_per_link: [],
            unsubscribed: false,
          },
        },
      },
    },
  },
  ...SCHEDULE_EXAMPLES,
  { method: 'get', path: /\/status$/, responses: { '200': { status: 'ok', data: 'Service OK' } } },
  { method: 'get', path: /\/dynamic_templates$/, responses: { '200': { templates: [TEMPLATE] } } },
  { method: 'get', path: /\/dynamic_templates\/\{id\}$/, responses: { '200': TEMPLATE } },
  {
    method: 'post',
    path: /\/dynamic_templates$/,
    responses: {
      '200': {
        ...TEMPLATE,
        message: 'Template welcome created!',
        params: { name: 'welcome', body: TEMPLATE.body },
      },
    },
  },
  {
    method: 'post',
    path: /\/webhook_endpoints$/,
    request: { target_url: ENDPOINT.target_url, events: ENDPOINT.events },
    responses: { '201': { ...ENDPOINT, signing_key: 'whsec_pOVusYSq-3CRA2rhsKdA5JNz8wuYLh7e3-SvyjGxnyA' } },
  },
  {
    method: 'post',
    path: /\/bulk_messages$/,
    request: {
      data: {
        messages: [
          {
            recipients: ['ann@example.org'],
            headers: { subject: 'Your results are ready', from: 'desk@clinic.example.com' },
            content: { 'text/plain': 'Your results are ready in the patient portal.' },
          },
          {
            recipients: ['bob@example.org'],
            headers: { subject: 'Your results are ready', from: 'desk@clinic.example.com' },
            content: { 'text/plain': 'Your results are ready in the patient portal.' },
          },
        ],
      },
    },
    responses: {
      '200': {
        messages: [
          { sourceTrackingId: TRACKING_ID, data: 'Service OK' },
          { sourceTrackingId: '019c1a2b-3c4d-7e5f-8a9b-0c1d2e3f4a5c', data: 'Service OK' },
        ],
      },
    },
  },
  {
    method: 'post',
    path: /\/forms\/api\/forms$/,
    request: {
      title: 'Contact',
      version: 1,
      form_json: {
        body: [
          { type: 'TextInput', id: 'name', properties: { field_name: 'name', text: 'Name', required: true } },
        ],
      },
    },
    responses: { '200': { id: '283c2bfc-8865-4986-a1c3-44648b12b324' } },
  },
  {
    method: 'post',
    path: /\/subscription_lists$/,
    request: { name: 'Patients' },
    responses: {
      '200': {
        data: {
          ...LIST,
          type: 'subscription_list',
          attributes: {
            name: 'Patients',
            is_default: false,
            subscriber_count: 0,
            form_id: null,
            double_opt_in: false,
            public: false,
          },
        },
      },
    },
  },
  {
    method: 'post',
    path: /\/campaign_mailings$/,
    request: {
      campaign_mailing: {
        subject: 'News',
        html_part: '<p>Hello {{first_name}}</p>',
        from_email: 'news@clinic.example.com',
        from_name: 'Clinic',
      },
    },
    responses: { '200': { data: MAILING_FULL } },
  },
  { method: 'get', path: /\/campaign_mailings\/\{id\}$/, responses: { '200': { data: MAILING_FULL } } },
  {
    method: 'post',
    path: /\/campaign_mailing_sends$/,
    request: { campaign_mailing_id: MAILING.id, campaign_mailing_send: { subscription_list_id: LIST.id } },
    responses: { '200': {} },
  },
  {
    method: 'get',
    path: /\/campaign_mailing_sends$/,
    responses: {
      '200': {
        data: [
          {
            ...SEND,
            type: 'campaign_mailing_send',
            attributes: {
              campaign_mailing_id: MAILING.id,
              subscription_list_id: LIST.id,
              subscription_list_name: 'Patients',
              state: 'sent',
              jid: '3be475ee91182f68542ef89b',
              send_at: AT,
              sent_at: AT,
              finished_at: AT,
              audience_count: 2,
              sent_count: 2,
              delivered_count: 2,
              viewed_count: 1,
              clicked_count: 0,
              bounced_count: 0,
              unsubscribed_count: 0,
            },
          },
        ],
        page_info: { count: 1, page: 1, items: 50, pages: 1, total_count: 1 },
        total_count: 1,
      },
    },
  },
  { method: 'get', path: /\/subscribers$/, responses: { '200': { data: [SUBSCRIBER_SHORT] } } },
  { method: 'get', path: /\/webhook_endpoints$/, responses: { '200': { webhook_endpoints: [ENDPOINT] } } },
  { method: 'get', path: /\/webhook_endpoints\/\{id\}$/, responses: { '200': ENDPOINT } },
  {
    method: 'post',
    path: /\/forms\/api\/forms\/\{id\}\/submissions$/,
    request: { form_data: { name: 'Ada Lovelace', email: 'ada@example.org', consent: true } },
  },
  {
    method: 'get',
    path: /\/forms\/api\/forms\/\{id\}\/submissions$/,
    responses: {
      '200': {
        data: [
          {
            id: 'c268fd18-e5d7-4f55-a117-be4262a43961',
            form_id: 'f6b2814a-3815-4bdc-b349-a0cd956e31f2',
            form_version: 1,
            form_data: '{"name":"Ada Lovelace","email":"ada@example.org","consent":true}',
            submitter_email: 'ada@example.org',
            attachments: [],
            signed: false,
            created_at: AT,
          },
        ],
        total: 1,
        page: 1,
        items: 50,
      },
    },
  },
  {
    method: 'get',
    path: /\/subscription_lists$/,
    responses: {
      '200': {
        data: [
          {
            ...DEFAULT_LIST,
            type: 'subscription_list',
            attributes: {
              name: 'All contacts',
              is_default: true,
              subscriber_count: 2,
              form_id: null,
              double_opt_in: false,
              public: false,
            },
          },
          {
            ...LIST,
            type: 'subscription_list',
            attributes: {
              name: 'Patients',
              is_default: false,
              subscriber_count: 2,
              form_id: null,
              double_opt_in: false,
              public: false,
            },
          },
        ],
      },
    },
  },
  {
    method: 'post',
    path: /\/subscribers$/,
    request: {
      subscriber: { email: 'ann@patients.example', first_name: 'Ann' },
      subscription_list_id: LIST.id,
    },
    responses: { '200': { data: SUBSCRIBER_SHORT } },
  },
  { method: 'get', path: /\/subscribers\/\{id\}$/, responses: { '200': { data: SUBSCRIBER } } },
];

/** A recorded example: request body and/or response bodies by status of `method` `route` (the path without its prefix). */
export interface RouteExample {
  method: string;
  route: string;
  request?: unknown;
  responses?: Record<string, unknown>;
}

/** The recorded examples. */
export const RECORDED_EXAMPLES: RouteExample[] = recorded;
