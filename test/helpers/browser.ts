import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`, done by .ci/run); the tests never download a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * A real headless Chromium. The flags keep it off the network beyond the gateway under test:
 * without them it reaches out for updates and safe-browsing lists, which this machine refuses.
 * Playwright gives every launch a fresh temporary profile (user data dir). A missing browser
 * fails the test run loudly: these tests are never skipped.
 */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the browser tests need Debian's chromium package (apt-get install -y chromium; .ci/run installs it).`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
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
