import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../markup/escape.ts';
import { html, raw, SafeHtml } from './html.ts';

describe('the html template', () => {
  it('escapes an interpolated string', () => {
    expect(html`<p>${'<b>Tom & "Jerry"</b>'}</p>`.value).toBe(
      '<p>&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt;</p>',
    );
  });

  it('keeps a value inside a double-quoted attribute', () => {
    expect(html`<a href="${'x" onclick="alert(1)'}">`.value).toBe(
      '<a href="x&quot; onclick=&quot;alert(1)">',
    );
  });

  it('keeps a value inside a single-quoted attribute', () => {
    expect(html`<a title='${"it's"}'>`.value).toBe("<a title='it&#39;s'>");
  });

  it('inserts raw markup as given', () => {
    expect(html`<div>${raw('<svg><path d="M0 0"/></svg>')}</div>`.value).toBe(
      '<div><svg><path d="M0 0"/></svg></div>',
    );
  });

  it('does not escape a fragment twice', () => {
    const inner = html`<em>${'a & b'}</em>`;
    expect(html`<p>${inner}</p>`.value).toBe('<p><em>a &amp; b</em></p>');
  });

  it('joins an array of fragments and escapes its strings', () => {
    const items = ['<one>', 'two'].map((s) => html`<li>${s}</li>`);
    expect(html`<ul>${items}${['<x>']}</ul>`.value).toBe(
      '<ul><li>&lt;one&gt;</li><li>two</li>&lt;x&gt;</ul>',
    );
  });

  it('renders null, undefined and false as nothing, and numbers and true as text', () => {
    expect(html`${null}${undefined}${false}|${0}|${true}`.value).toBe('|0|true');
  });

  it('gives a SafeHtml that reads as its markup', () => {
    const page = html`<p>${'&'}</p>`;
    expect(page).toBeInstanceOf(SafeHtml);
    expect(String(page)).toBe('<p>&amp;</p>');
  });
});

describe('escapeHtml', () => {
  it('escapes the five characters that matter in content and attributes', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});
