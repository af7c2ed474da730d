import { createVerify, generateKeyPairSync } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { expect, it, onTestFinished } from 'vitest';
import { dkimKeyObject } from './dkim-keys.ts';
import { composeMessage } from './compose.ts';
import { createRenderPool } from './render-pool.ts';
import type { DeliveryItem } from './model.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

it('parses a stored key once and reuses it', () => {
  let opened = 0;
  const open = () => (opened++, pem);
  const first = dkimKeyObject('sealed-a', open);
  expect(dkimKeyObject('sealed-a', open)).toBe(first);
  expect(opened).toBe(1);
  expect(dkimKeyObject('sealed-b', open)).not.toBe(first);
  expect(opened).toBe(2);
});

it('signs a composed message that the public key verifies', async () => {
  const item = {
    recipientId: 1,
    reference: 'm1',
    customerId: 1,
    address: 'pat@example.net',
    final: false,
    headerMessageId: '<m1@clinic.example>',
    envelopeFrom: 'desk@clinic.example',
    createdAt: Date.now(),
    allowNonTls: false,
    forceSecure: false,
    openTracking: false,
    linkTracking: false,
    content: null,
    dkim: [
      {
        domainName: 'clinic.example',
        keySelector: 'k1',
        privateKey: dkimKeyObject('sealed-c', () => pem),
      },
    ],
  } satisfies DeliveryItem;
  // The parsed key crosses to a render thread with the copy.
  const renderer = createRenderPool(1).open();
  onTestFinished(() => renderer.close());
  const raw = await composeMessage(
    item,
    {
      subject: 'Hi',
      from: { address: 'desk@clinic.example', name: '' },
      to: [{ address: 'pat@example.net', name: 'Pat' }],
      cc: [{ address: 'kim@example.net', name: '' }],
      headers: {},
      text: 'Hello',
      attachments: [],
    },
    { rewriteLinks: (h) => h, openPixelUrl: () => '' },
    renderer,
  );
  const mail = await simpleParser(raw);
  const header = String(mail.headerLines.find((h) => h.key === 'dkim-signature')?.line);
  const signature = /\bb=([A-Za-z0-9+/=\s]+)$/.exec(header.replace(/\r?\n\s+/g, ''))![1]!.replace(/\s/g, '');
  // Verify as a receiver would: the relaxed canonical signed headers, then the DKIM-Signature header without b=.
  const names = /\bh=([^;]+)/.exec(header.replace(/\r?\n\s+/g, ''))![1]!.split(':');
  expect(names.map((n) => n.toLowerCase())).toEqual(expect.arrayContaining(['to', 'cc']));
  const lines = raw
    .toString()
    .split('\r\n\r\n')[0]!
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n');
  const relaxed = (line: string) => {
    const i = line.indexOf(':');
    return `${line.slice(0, i).toLowerCase().trim()}:${line
      .slice(i + 1)
      .replace(/\s+/g, ' ')
      .trim()}`;
  };
  const signed = names
    .map((n) => relaxed(lines.find((l) => l.toLowerCase().startsWith(`${n.toLowerCase()}:`))!))
    .join('\r\n');
  const own = relaxed(lines.find((l) => l.toLowerCase().startsWith('dkim-signature:'))!).replace(
    /\bb=[^;]*$/,
    'b=',
  );
  const verify = createVerify('RSA-SHA256').update(`${signed}\r\n${own}`);
  expect(verify.verify(publicKey, signature, 'base64')).toBe(true);
});
