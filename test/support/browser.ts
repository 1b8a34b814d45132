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

/**
 * Text on the page whose contrast with the background behind it is under WCAG AA's 4.5:1 (every
 * text of these pages is normal size), as "ratio tag.class: text".
 */
export function lowContrastText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const linear = (value: number) => {
      const channel = value / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    };
    const rgba = (css: string) => (css.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([red = 0, green = 0, blue = 0]: number[]) => 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue);
    const backgroundOf = (element: Element | null): number[] => {
      for (let at = element; at; at = at.parentElement) {
        const color = rgba(getComputedStyle(at).backgroundColor);
        if (color[3] !== 0) return color;
      }
      return [255, 255, 255];
    };
    const low: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node.parentElement;
      if (!element || !node.textContent?.trim()) continue;
      const [text, behind] = [luminance(rgba(getComputedStyle(element).color)), luminance(backgroundOf(element))];
      const ratio = (Math.max(text, behind) + 0.05) / (Math.min(text, behind) + 0.05);
      if (ratio < 4.5) low.push(`${ratio.toFixed(2)} ${element.tagName.toLowerCase()}.${element.className}: ${node.textContent.trim().slice(0, 40)}`);
    }
    return low;
  });
}
