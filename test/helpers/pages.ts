import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

/** Where the README's and docs' screenshots live; written only with UPDATE_SCREENSHOTS=1. */
const IMAGES = path.resolve('docs/images');

/** Saves a screenshot of the page as docs/images/<name>.png when UPDATE_SCREENSHOTS=1 is set. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  fs.mkdirSync(IMAGES, { recursive: true });
  await page.screenshot({ path: path.join(IMAGES, `${name}.png`), fullPage, animations: 'disabled' });
}

/**
 * A page that records what goes wrong in it: uncaught errors, console errors (a Content-Security-
 * Policy violation is one) and failed requests. `problems()` is empty on a healthy page.
 */
export async function watchedPage(
  context: BrowserContext,
): Promise<{ page: Page; problems: () => string[]; transferred: () => number }> {
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  let bytes = 0;
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text()))
      problems.push(`console error: ${message.text()}`);
  });
  // A request cut short by the page navigating away (ERR_ABORTED) is not a failure.
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? '';
    if (reason !== 'net::ERR_ABORTED') problems.push(`request failed: ${request.url()} ${reason}`);
  });
  page.on('requestfinished', (request) => {
    // A page closed meanwhile has no sizes to give: its last requests count for nothing.
    request.sizes().then(
      (sizes) => {
        bytes += sizes.responseBodySize + sizes.responseHeadersSize;
      },
      () => undefined,
    );
  });
  return { page, problems: () => [...problems], transferred: () => bytes };
}
