import { describe, expect, it } from 'vitest';
import { findLinks, rewriteLinks } from './links.ts';

describe('links of an HTML body', () => {
  it('finds http(s) links in order, with entities decoded, and leaves mailto and anchors alone', () => {
    const html =
      '<a href="https://a.example/x?a=1&amp;b=2">a</a> <a href="mailto:x@y.example">m</a> <a href=\'http://b.example\'>b</a> <a href="#top">t</a>';
    expect(findLinks(html)).toEqual([
      { position: 0, url: 'https://a.example/x?a=1&b=2' },
      { position: 1, url: 'http://b.example/' },
    ]);
  });

  it('keeps non-ASCII targets as a browser would request them, so the redirect header is valid', () => {
    const [link] = findLinks('<a href="https://例え.jp/ページ?q=é">x</a>');
    expect(link!.url).toBe('https://xn--r8jz45g.jp/%E3%83%9A%E3%83%BC%E3%82%B8?q=%C3%A9');
    expect(/^[\x21-\x7e]+$/.test(link!.url)).toBe(true);
  });

  it('drops line breaks inside a target and skips a target that is not a URL', () => {
    expect(findLinks('<a href="https://a.example/pa\nth">x</a><a href="https://">y</a>')).toEqual([
      { position: 0, url: 'https://a.example/path' },
    ]);
  });

  it('rewrites each tracked link by position and escapes the new value', () => {
    const out = rewriteLinks(
      '<a href="https://a.example">a</a><a href="mailto:x@y.example">m</a><a href="https://b.example">b</a>',
      (p) => `https://t.example/c?p=${p}&x="y"`,
    );
    expect(out).toBe(
      '<a href="https://t.example/c?p=0&amp;x=&quot;y&quot;">a</a><a href="mailto:x@y.example">m</a><a href="https://t.example/c?p=1&amp;x=&quot;y&quot;">b</a>',
    );
  });
});
