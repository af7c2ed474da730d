import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { envelopeSender, readReturnPath, returnPath } from './return-path.ts';

const key = randomBytes(32);
const domain = 'bounces.example.org';

describe('return paths', () => {
  it('names its delivery, and reads back whatever the case of the letters', () => {
    const t = returnPath(domain, key, { kind: 't', id: 4711 });
    expect(t).toMatch(/^b-t3mv-[0-9a-f]{24}@bounces\.example\.org$/);
    expect(readReturnPath(domain, key, t)).toEqual({ kind: 't', id: 4711 });
    expect(readReturnPath(domain, key, t.toUpperCase())).toEqual({ kind: 't', id: 4711 });
    const m = returnPath(domain, key, { kind: 'm', id: 4711 });
    expect(readReturnPath(domain, key, m)).toEqual({ kind: 'm', id: 4711 });
  });

  it('refuses a changed tag, id, kind or domain, and a tag made with another key', () => {
    const good = returnPath(domain, key, { kind: 't', id: 12 });
    const at = good.indexOf('@');
    const flipped = good.slice(0, at - 1) + (good[at - 1] === '0' ? '1' : '0') + good.slice(at);
    expect(readReturnPath(domain, key, flipped)).toBeNull();
    expect(readReturnPath(domain, key, good.replace('b-tc-', 'b-td-'))).toBeNull();
    expect(readReturnPath(domain, key, good.replace('b-tc-', 'b-mc-'))).toBeNull();
    expect(readReturnPath(domain, key, good.replace('b-tc-', 'b-t0c-'))).toBeNull();
    expect(readReturnPath(domain, key, good.replace(domain, 'evil.example'))).toBeNull();
    expect(readReturnPath(domain, randomBytes(32), good)).toBeNull();
    expect(readReturnPath(domain, key, `patient@${domain}`)).toBeNull();
  });

  it('keeps the From address as envelope sender when no bounce domain is configured', () => {
    expect(envelopeSender(undefined, key, { kind: 't', id: 1 }, 'desk@clinic.example')).toBe(
      'desk@clinic.example',
    );
    expect(
      envelopeSender(' Bounces.Example.org. ', key, { kind: 't', id: 1 }, 'desk@clinic.example'),
    ).toMatch(/@bounces\.example\.org$/);
  });
});
