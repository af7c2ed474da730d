/** Shared pieces of the forms tests: a definition using most component types and small request helpers. */
import { crc32, deflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

/** A contact form: name (required), email (Email mask), topic (Select), consent (required Checkbox), and a button. */
export function contactForm(): { body: unknown[] } {
  return {
    body: [
      { type: 'Heading', id: 'h', properties: { text: 'Contact us' } },
      {
        type: 'TextInput',
        id: 'name',
        properties: { field_name: 'name', text: '<b>Full name</b><script>alert(1)</script>', required: true },
      },
      {
        type: 'TextInput',
        id: 'email',
        properties: { field_name: 'email', text: 'Email', required: true, input_mask: 'Email' },
      },
      {
        type: 'Select',
        id: 'topic',
        properties: {
          field_name: 'topic',
          text: 'Topic',
          options: ['Billing', { label: 'Appointments', value: 'appt' }],
        },
      },
      { type: 'TextArea', id: 'msg', properties: { field_name: 'message', text: 'Message' } },
      {
        type: 'Checkbox',
        id: 'consent',
        properties: { field_name: 'consent', text: 'I agree', required: true },
      },
      { type: 'Button', id: 'go', properties: { margin: '8px 0', full_width: true } },
    ],
  };
}

/** Creates a form through the API and returns its id. */
export async function createForm(
  app: FastifyInstance,
  auth: Record<string, string>,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/forms/api/forms',
    headers: auth,
    payload: { title: 'Contact', form_json: contactForm(), version: 1, ...extra },
  });
  if (res.statusCode !== 200) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { id: string }).id;
}

/** Posts `fields` to the hosted page of a form as a browser without JavaScript would. */
export function postHosted(app: FastifyInstance, id: string, fields: Record<string, string>) {
  return app.inject({
    method: 'POST',
    url: `/f/${id}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** A valid submission of the contact form. */
export const GOOD = {
  name: 'Ada Lovelace',
  email: 'ada@example.org',
  topic: 'appt',
  message: 'Hello',
  consent: true,
};

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A valid 2x2 black PNG. */
export function tinyPng(): Buffer {
  const ihdr = Buffer.from([0, 0, 0, 2, 0, 0, 0, 2, 8, 0, 0, 0, 0]);
  const rows = Buffer.from([0, 0, 0, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
