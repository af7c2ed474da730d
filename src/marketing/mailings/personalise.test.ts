import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.ts';
import { keyOf, makeSubscriber, marketingClient } from '../marketing.test-support.ts';
import {
  EMPTY_PERSONALISATION,
  TemplateError,
  checkTemplate,
  loadPersonalisation,
  personalise,
  type Personalisation,
} from './personalise.ts';

const ada: Personalisation = {
  email: 'ada@example.net',
  first_name: 'Ada <b>',
  last_name: 'Lovelace & Co',
  custom: { favourite_colour: 'blue', 'Favourite colour': '<green>', Plan: 'Gold' },
};

describe('personalise', () => {
  it('fills the name and email fields', () => {
    expect(
      personalise(
        'Hi {{first_name}} {{last_name}} ({{email}})',
        { ...ada, first_name: 'Ada', last_name: 'L' },
        { html: false },
      ),
    ).toBe('Hi Ada L (ada@example.net)');
  });

  it('escapes values in HTML', () => {
    expect(personalise('<p>{{first_name}} {{last_name}}</p>', ada, { html: true })).toBe(
      '<p>Ada &lt;b&gt; Lovelace &amp; Co</p>',
    );
  });

  it('leaves values as they are in text', () => {
    expect(personalise('{{first_name}} {{last_name}}', ada, { html: false })).toBe('Ada <b> Lovelace & Co');
  });

  it('fills custom fields by name, by a name with spaces, and under custom_fields', () => {
    const template =
      '{{favourite_colour}}|{{[Favourite colour]}}|{{custom_fields.favourite_colour}}|{{custom_fields.[Favourite colour]}}';
    expect(personalise(template, ada, { html: false })).toBe('blue|<green>|blue|<green>');
    expect(personalise(template, ada, { html: true })).toBe('blue|&lt;green&gt;|blue|&lt;green&gt;');
  });

  it('fills a custom field by its lower-cased name too', () => {
    expect(personalise('{{Plan}} {{plan}}', ada, { html: false })).toBe('Gold Gold');
  });

  it('lets the subscriber fields win over a custom field of the same name', () => {
    expect(
      personalise('{{email}}', { ...ada, custom: { email: 'other@example.net' } }, { html: false }),
    ).toBe('ada@example.net');
  });

  it('renders unknown names and missing names as empty', () => {
    expect(
      personalise('[{{nickname}}][{{custom_fields.nope}}][{{first_name}}]', EMPTY_PERSONALISATION, {
        html: true,
      }),
    ).toBe('[][][]');
  });

  it('supports the built-in block helpers', () => {
    const template = '{{#if first_name}}Hi {{first_name}}{{else}}Hi there{{/if}}';
    expect(personalise(template, { ...ada, first_name: 'Ada' }, { html: false })).toBe('Hi Ada');
    expect(personalise(template, EMPTY_PERSONALISATION, { html: false })).toBe('Hi there');
  });

  it('renders the same template for different subscribers from the cache, each with its own values', () => {
    const template = 'Dear {{first_name}}';
    const names = Array.from({ length: 200 }, (_, i) => `n${i}`);
    expect(
      names.map((n) => personalise(template, { ...EMPTY_PERSONALISATION, first_name: n }, { html: false })),
    ).toEqual(names.map((n) => `Dear ${n}`));
  });

  it('keeps working after more distinct templates than the cache holds', () => {
    for (let i = 0; i < 300; i++)
      expect(personalise(`#${i} {{email}}`, ada, { html: i % 2 === 0 })).toBe(`#${i} ada@example.net`);
  });

  it.each([
    'Hi {{first_name',
    '{{#if first_name}}open',
    '{{/if}}',
    '{{> partial}}',
    '{{nohelper first_name}}',
    '{{log first_name}}',
  ])('throws a TemplateError for %j, each time it is used', (template) => {
    for (let i = 0; i < 2; i++) {
      const err = (() => {
        try {
          personalise(template, ada, { html: true });
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(TemplateError);
      expect((err as TemplateError).code).toBe('marketing.template_invalid');
    }
  });
});

describe('checkTemplate', () => {
  it('answers null for a usable template', () => {
    expect(checkTemplate('Hello {{first_name}}, {{#each x}}{{this}}{{/each}}')).toBeNull();
  });

  it('answers a message naming the problem for a broken one', () => {
    expect(checkTemplate('Hello {{first_name')).toMatch(/Parse error on line 1/);
    expect(checkTemplate('{{#if a}}x{{/each}}')).toMatch(/if doesn't match each/);
  });
});

describe('loadPersonalisation', () => {
  let t: TestApp;
  let a: TestAccount;
  beforeAll(async () => {
    t = await createTestApp();
    a = await t.createAccount();
  });
  afterAll(() => t.close());

  it("loads a subscriber's names, email and custom fields by their names", async () => {
    const id = await makeSubscriber(marketingClient(t, a), 'grace@example.net', {
      first_name: 'Grace',
      custom_fields: [
        { name: 'Favourite colour', value: 'red' },
        { name: 'visits', value: 3 },
      ],
    });
    expect(await loadPersonalisation(t.ctx.database.db, await keyOf(t, 'subscribers', id))).toEqual({
      email: 'grace@example.net',
      first_name: 'Grace',
      last_name: null,
      custom: { 'Favourite colour': 'red', visits: '3' },
    });
  });

  it('answers undefined for an id that is no subscriber', async () => {
    expect(await loadPersonalisation(t.ctx.database.db, 987654)).toBeUndefined();
  });
});
