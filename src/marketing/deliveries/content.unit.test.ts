import { describe, expect, it } from 'vitest';
import { verifyToken } from '../../mail/tokens.ts';
import { EMPTY_PERSONALISATION } from '../mailings/personalise.ts';
import { renderEmail, type EmailTemplate } from './content.ts';

const key = Buffer.alloc(32, 7);
const template: EmailTemplate = {
  subject: 'Spring news',
  html: '<p><a href="{{view_in_browser_url}}">View in your browser</a></p><p>{{unsubscribe_url}}</p>',
  text: 'Read it online: {{view_in_browser_url}}\n{{unsubscribe_url}}',
  fromEmail: 'news@clinic.example',
  fromName: 'Clinic',
  customerName: 'Clinic',
};

describe('the view-in-browser merge field', () => {
  it('fills {{view_in_browser_url}} with a signed link to this copy', () => {
    const subscriber = { ...EMPTY_PERSONALISATION, email: 'ann@example.org' };
    const out = renderEmail(template, { id: 42, email: 'ann@example.org' }, subscriber, {
      publicUrl: 'https://mail.example',
      key,
    });
    const link = /Read it online: (\S+)/.exec(out.text!)![1]!;
    expect(link).toMatch(/^https:\/\/mail\.example\/v\/mv\.16\.[\w-]+$/);
    expect(verifyToken(key, 'marketing', link.split('/v/')[1]!)).toEqual({ kind: 'view', deliveryId: 42 });
    expect(out.html).toContain(`href="${link}"`);
  });
});
