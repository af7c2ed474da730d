import { describe, expect, it } from 'vitest';
import { contrast, foregroundOn, normaliseColour, textShadeOf } from './colour.ts';

describe('brand colours', () => {
  it.each(['#ffff00', '#1f4fd1', '#777777', '#00a86b', '#000000', '#ffffff', '#ff69b4'])(
    'text on %s contrasts at least 4.5:1',
    (bg) => {
      expect(contrast(bg, foregroundOn(bg))).toBeGreaterThanOrEqual(4.5);
    },
  );

  it.each(['#ffff00', '#87ceeb', '#ffffff', '#1f4fd1'])('the text shade of %s reads on white', (c) => {
    expect(contrast(textShadeOf(c), '#ffffff')).toBeGreaterThanOrEqual(4.5);
  });

  it('keeps a colour that already reads on white', () => {
    expect(textShadeOf('#1f4fd1')).toBe('#1f4fd1');
  });

  it('normalises short and upper-case forms and refuses anything else', () => {
    expect(normaliseColour('#ABC')).toBe('#aabbcc');
    expect(normaliseColour(' #0A0B0C ')).toBe('#0a0b0c');
    expect(normaliseColour('red')).toBeUndefined();
    expect(normaliseColour('#12345g')).toBeUndefined();
  });
});
