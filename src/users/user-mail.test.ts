import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../test/harness.ts';
import { storedMessage } from '../email/email.test-support.ts';
import { createTestUser } from '../console/console.test-support.ts';
import { changeBrand } from '../accounts/brand.service.ts';
import { uploadImage } from '../accounts/images.service.ts';
import { CLI_CHANGE } from '../audit/audit.service.ts';
import { mailUserLink } from './user-mail.ts';

describe("Sealpost's own mail in the account's brand", () => {
  let t: TestApp;
  let a: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    a = await t.createAccount();
  });
  afterAll(() => t.close());

  const lastMessage = async () => {
    const row = await t.ctx.database.db
      .selectFrom('messages')
      .select('id')
      .where('customer_id', '=', a.account.customer_id)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    return (await storedMessage(t, row.id)).content;
  };

  it('sends an invitation with the logo, the name, a button in the brand colour and the postal address', async () => {
    const png = await sharp({ create: { width: 300, height: 80, channels: 3, background: '#ffd400' } })
      .png()
      .toBuffer();
    const logo = await uploadImage(t.ctx, a.account.customer_id, { name: 'logo.png', data: png }, CLI_CHANGE);
    await changeBrand(
      t.ctx,
      a.account.customer_id,
      {
        name: 'Sunny <Clinic>',
        colour: '#ffd400',
        logoImageId: logo.id,
        postalAddress: '2 Sun Street\nBrightville',
      },
      CLI_CHANGE,
    );
    const user = await createTestUser(t, a.account.customer_id, 'editor', { email: 'new@sunny.example' });
    expect(await mailUserLink(t.ctx, user, 'sunny', 'invite', 'tok123')).toBe(true);
    const content = await lastMessage();
    expect(content.html).toContain(`src="${logo.url}"`);
    expect(content.html).toContain('Sunny &lt;Clinic&gt;');
    expect(content.html).not.toContain('<Clinic>');
    // A yellow brand gets black text on its button.
    expect(content.html).toMatch(/background:#ffd400[^>]*><a [^>]*color:#000000/);
    expect(content.html).toContain('2 Sun Street<br>Brightville');
    expect(content.text).toContain('Choose your password: ');
    expect(content.text).toContain('/console/set-password?token=tok123');
    expect(content.text).toContain('Sunny <Clinic>\n2 Sun Street\nBrightville');
  });
});
