/** Debian's Chromium for browser tests, through playwright-core (never a downloaded browser). */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Debian installs Chromium. */
export const CHROMIUM = '/usr/bin/chromium';

/** True when Chromium is installed; browser tests skip (with a warning) when it is not. */
export function chromiumPresent(what: string): boolean {
  const present = existsSync(CHROMIUM);
  if (!present) console.warn(`${what} skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
  return present;
}

/** Launches headless Chromium without network side traffic. */
export function launchChromium(): Promise<Browser> {
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
