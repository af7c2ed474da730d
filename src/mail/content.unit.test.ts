import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSealer } from '../crypto/sealer.ts';
import { openContent, sealContent, type StoredContent } from './content.ts';

const sealer = createSealer(randomBytes(32));

const content = (attachments: StoredContent['attachments']): StoredContent => ({
  subject: 'Your scans',
  from: { address: 'noreply@clinic.example', name: 'Clinic' },
  to: [{ address: 'patient@example.org', name: '' }],
  cc: [],
  headers: { 'X-Case': 'ünïcode 42' },
  text: 'Attached.\nLine two.',
  attachments,
});

describe('sealed message content', () => {
  it('opens to the content sealed, attachments as the base64 they were given', () => {
    const c = content([
      { fileName: 'a.pdf', contentType: 'application/pdf', content: randomBytes(200_001).toString('base64') },
      { fileName: 'empty.txt', contentType: 'text/plain', content: '' },
      {
        fileName: 'b.bin',
        contentType: 'application/octet-stream',
        content: randomBytes(2).toString('base64'),
      },
    ]);
    expect(openContent(sealer, 'm1', sealContent(sealer, 'm1', c))).toEqual(c);
  });

  it('stores attachments as bytes: the token is about a third smaller than sealing their base64 text', () => {
    const c = content([
      { fileName: 'a.pdf', contentType: 'application/pdf', content: randomBytes(300_000).toString('base64') },
    ]);
    const asText = sealer.seal(JSON.stringify(c), 'message:m1');
    const token = sealContent(sealer, 'm1', c);
    expect(token.length).toBeLessThan(asText.length * 0.76);
    expect(token.length).toBeGreaterThan(300_000 * (4 / 3));
  });

  it('keeps an attachment whose base64 is not canonical as it was given', () => {
    const c = content([{ fileName: 'a.txt', contentType: 'text/plain', content: 'aGVs\nbG8=' }]);
    expect(openContent(sealer, 'm1', sealContent(sealer, 'm1', c))).toEqual(c);
  });

  it('opens content sealed as plain JSON by earlier versions', () => {
    const c = content([{ fileName: 'a.txt', contentType: 'text/plain', content: 'aGVsbG8=' }]);
    expect(openContent(sealer, 'm1', sealer.seal(JSON.stringify(c), 'message:m1'))).toEqual(c);
  });

  it('binds the content to its message', () => {
    const c = content([{ fileName: 'a.txt', contentType: 'text/plain', content: 'aGVsbG8=' }]);
    expect(() => openContent(sealer, 'm2', sealContent(sealer, 'm1', c))).toThrow();
  });
});
