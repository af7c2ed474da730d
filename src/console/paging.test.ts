/** Paging values on the console's paged pages: a value that is not a page number is refused with a clear 400 page. */
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestBed } from './console.test-support.ts';
import { createList } from '../marketing/lists/lists.service.ts';
import { seedMailing, seedSend } from '../marketing/analytics/analytics.test-support.ts';
import { uuidOf } from '../marketing/marketing.test-support.ts';
import { createForm } from '../forms/forms.test-support.ts';

const {
  t,
  a,
  clients: [owner],
} = consoleTestBed(['owner']);
const BAD = ['1e309', 'Infinity', '12345678901234567890', '-1', '0'];
let pages: string[];

beforeAll(async () => {
  const cid = a.account.customer_id;
  const list = await createList(t.ctx, cid, 'Patients');
  const mailing = await seedMailing(t.ctx.database.db, cid, { subject: 'Checkups' });
  const key = await seedSend(t.ctx.database.db, cid, {
    mailingId: mailing,
    listName: 'North',
    links: ['https://clinic.example/book'],
  });
  const send = await uuidOf(t.ctx.database.db, 'campaign_mailing_sends', key);
  const form = await createForm(t.app, a.auth);
  pages = [
    `/console/audiences/lists/${list.id}?page=`,
    `/console/campaigns/sends/${send}/links/0?page=`,
    `/console/forms/${form}/responses?before=`,
  ];
});

describe('console paging values', () => {
  it('answers 400 with a message for every value that is not a page', async () => {
    const wrong: string[] = [];
    for (const page of pages)
      for (const value of BAD) {
        const res = await owner.get(`${page}${encodeURIComponent(value)}`);
        if (res.statusCode !== 400 || !res.body.includes('must be'))
          wrong.push(`${page}${value} → ${res.statusCode}`);
      }
    expect(wrong).toEqual([]);
  });

  it('says what a page number is', async () => {
    const res = await owner.get(`${pages[0]}1e309`);
    expect(res.body).toContain('The page number must be a whole number from 1 to 1000000');
  });

  it('shows the first page when no page is asked for', async () => {
    for (const page of pages)
      expect((await owner.get(page.replace(/[?](page|before)=$/, ''))).statusCode).toBe(200);
  });
});
