import { generateKeyPairSync } from 'node:crypto';
import DKIM from 'nodemailer/lib/dkim/index.js';
import { expect, it } from 'vitest';
import { relaxedBodyHash, signDkim } from './dkim-sign.ts';
import { verifyDkim } from '../test/dkim.ts';
import type { DkimKey } from './model.ts';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ed = generateKeyPairSync('ed25519');
const rsaRecord = `v=DKIM1; k=rsa; p=${rsa.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
const edDer = ed.publicKey.export({ type: 'spki', format: 'der' });
const edRecord = `v=DKIM1; k=ed25519; p=${edDer.subarray(edDer.length - 32).toString('base64')}`;
const records = new Map([
  ['sp1._domainkey.clinic.example', rsaRecord],
  ['sp1e._domainkey.clinic.example', edRecord],
]);
const rsaKey: DkimKey = { domainName: 'clinic.example', keySelector: 'sp1', privateKey: rsa.privateKey };
const edKey: DkimKey = { domainName: 'clinic.example', keySelector: 'sp1e', privateKey: ed.privateKey };

const message = Buffer.from(
  [
    'From: Desk <desk@clinic.example>',
    'To: Pat <pat@example.net>,',
    '\t Kim   <kim@example.net>',
    'Subject:  Your   results  ',
    'Date: Mon, 23 Nov 2026 10:00:00 +0000',
    'Message-ID: <m1@clinic.example>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Hello  Pat,\t ',
    '',
    'your results are ready.',
    '',
    '',
  ].join('\r\n'),
);

it('signs with Ed25519 so that the published public key verifies the signature and the body hash', async () => {
  const signed = await signDkim(message, [edKey]);
  expect(verifyDkim(signed, records)).toEqual([
    {
      algorithm: 'ed25519-sha256',
      domain: 'clinic.example',
      selector: 'sp1e',
      bodyHashOk: true,
      signatureOk: true,
    },
  ]);
});

it('fails verification when a signed header, the body or the signature changes', async () => {
  const signed = (await signDkim(message, [edKey])).toString('binary');
  const subject = signed.replace('Your   results', 'Your  other results');
  expect(verifyDkim(subject, records)[0]).toMatchObject({ bodyHashOk: true, signatureOk: false });
  const body = signed.replace('ready', 'read');
  expect(verifyDkim(body, records)[0]).toMatchObject({ bodyHashOk: false });
  const b = /\bb=([A-Za-z0-9+/]{4})/.exec(signed)!;
  const flipped = b[1]![0] === 'A' ? `B${b[1]!.slice(1)}` : `A${b[1]!.slice(1)}`;
  const signature = signed.replace(b[0], `b=${flipped}`);
  expect(verifyDkim(signature, records)[0]).toMatchObject({ bodyHashOk: true, signatureOk: false });
});

it('signs with RSA and Ed25519 together, each signature valid on its own', async () => {
  const signed = await signDkim(message, [rsaKey, edKey]);
  const checked = verifyDkim(signed, records);
  expect(checked.map((c) => [c.algorithm, c.selector, c.bodyHashOk, c.signatureOk])).toEqual([
    ['rsa-sha256', 'sp1', true, true],
    ['ed25519-sha256', 'sp1e', true, true],
  ]);
});

it('gives the same RSA signature as nodemailer’s own signer', async () => {
  const ours = (await signDkim(message, [rsaKey])).toString();
  const theirs = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const out = new DKIM(rsaKey as unknown as DKIM.Options).sign(message);
    out.on('data', (c: Buffer) => chunks.push(c));
    out.on('error', reject);
    out.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });
  expect(ours).toBe(theirs);
});

it('hashes bodies in relaxed form as RFC 6376 shows', () => {
  const sha = (text: string) => relaxedBodyHash(Buffer.from(text));
  expect(sha('')).toBe(sha('\r\n\r\n'));
  expect(sha(' C \r\nD \t E\r\n\r\n\r\n')).toBe(sha(' C\r\nD E\r\n'));
  expect(sha('a\nb')).toBe(sha('a\r\nb\r\n'));
  expect(sha('a\r\n')).not.toBe(sha('a\r\n\r\nb\r\n'));
});
