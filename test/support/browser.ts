import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (CI installs it); playwright-core never downloads a browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Statuses of 500 and above the page received, as "status url". */
  serverErrors: string[];
  /** Dialogs a page opened and errors its scripts threw: neither may happen on a page without script. */
  scriptEvents: string[];
  /** Writes a full-page screenshot into the test output folder; returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile, recording what a test must never see. */
export async function launchBrowser(outputDir: string, { hostAliases = [] }: { hostAliases?: string[] } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`);
  const profile = mkdtempSync(join(tmpdir(), 'offer-ledger-chromium-'));
  // Host names that resolve to 127.0.0.1, so a page can be opened as a plain-http site that is not localhost.
  const aliases = hostAliases.length > 0 ? [`--host-resolver-rules=${hostAliases.map((host) => `MAP ${host} 127.0.0.1`).join(', ')}`] : [];
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: [...ARGS, ...aliases] });
  const page = context.pages()[0] ?? (await context.newPage());
  const serverErrors: string[] = [];
  const scriptEvents: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 500) serverErrors.push(`${response.status()} ${response.url()}`);
  });
  page.on('dialog', (dialog) => {
    scriptEvents.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => scriptEvents.push(`page error: ${error.message}`));
  return {
    context,
    page,
    serverErrors,
    scriptEvents,
    async screenshot(name) {
      mkdirSync(outputDir, { recursive: true });
      const path = join(outputDir, `${name.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 120)}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
