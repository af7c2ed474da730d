/** Test helpers for the console's forms pages. */
import type { TestAccount, TestApp } from '../../test/harness.ts';

/** A form as the API answers it, to check what a console page saved. */
export async function storedForm(t: TestApp, a: TestAccount, id: string) {
  const res = await t.app.inject({ method: 'GET', url: `/v1/forms/api/forms/${id}`, headers: a.auth });
  return (res.json() as { data: unknown }).data as {
    version: number;
    active: boolean;
    title: string;
    form_json: { body: { type: string; properties: Record<string, unknown> }[] };
  };
}
