/** Debian's Chromium for browser tests, through playwright-core (never a downloaded browser). */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Debian installs Chromium. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Launches headless Chromium without network side traffic. A missing browser fails the test rather than skipping it,
 * so a run without one cannot pass unnoticed; SEALPOST_SKIP_BROWSER_TESTS=1 leaves browser tests out on purpose.
 */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium, or set SEALPOST_SKIP_BROWSER_TESTS=1`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
