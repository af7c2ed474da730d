/** Shared pieces of the console's browser tests: Debian's Chromium launched headless, and axe-core's serious and critical findings. */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium; browser tests skip when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';
/** True when Chromium is installed. */
export const chromiumPresent = existsSync(CHROMIUM);
/** Where screenshots go. */
export const SHOTS = '.test-artifacts/console';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Launches headless Chromium without network side traffic. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  });
}

/** Serious and critical axe-core violations on the page, as "rule: target" lines. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() => (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
