import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser, type Browser } from '../support/browser.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import type { OpenApiDocument } from '../support/openapi.js';

/** Screenshots of failed tests land here. */
const OUTPUT = fileURLToPath(new URL('../../test-results/openapi-docs/', import.meta.url));
/** A plain-http host name that is not localhost, as a service behind a load balancer or on a LAN has. */
const HOST = 'api.offer-ledger.test';

/**
 * GET /docs in Debian's Chromium with every request to another origin refused: Swagger UI renders
 * the whole document from the app's own files (no CDN), under the page's Content-Security-Policy,
 * over plain http.
 */
describe('the API docs page in a headless browser, offline', () => {
  let t: TestRuntime & { app: FastifyInstance };
  let browser: Browser;
  /** Requests the page tried to send anywhere but the app. */
  const elsewhere: string[] = [];
  /** What the console reported as an error: an asset that failed, a policy that refused something. */
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'sql', env: { REDIS_URL: '' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser(OUTPUT, { hostAliases: [HOST] });
    browser.page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(async () => {
      const path = await browser.screenshot(task.name);
      process.stderr.write(`screenshot of the failed test: ${path}\n`);
    });
  });

  it.each([
    ['127.0.0.1', '/docs'],
    [HOST, '/docs/'],
  ])('renders every operation of the document from %s (%s), loading nothing from elsewhere', async (host, pagePath) => {
    const origin = `http://${host}:${(t.app.server.address() as AddressInfo).port}`;
    await browser.context.unrouteAll();
    await browser.context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
      elsewhere.push(url);
      return route.abort('internetdisconnected');
    });
    elsewhere.length = 0;
    consoleErrors.length = 0;
    const document = (await t.app.inject({ url: '/openapi.json' })).json() as OpenApiDocument;
    const operations = Object.values(document.paths).flatMap((methods) => Object.keys(methods));
    const page = browser.page;

    const response = await page.goto(`${origin}${pagePath}`);
    expect(response!.status()).toBe(200);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBe(operations.length);
    expect(await page.locator('.info .title').textContent()).toContain('offer-ledger');
    // Grouped by the document's tags, in their order.
    const tags = (document as unknown as { tags: { name: string }[] }).tags.map((tag) => tag.name);
    expect(await page.locator('.opblock-tag').evaluateAll((headings) => headings.map((heading) => heading.getAttribute('data-tag')))).toEqual(tags);
    // The compatibility GET is shown as deprecated, and only it.
    const deprecated = page.locator('.opblock-deprecated');
    expect(await deprecated.count()).toBe(1);
    expect(await deprecated.textContent()).toMatch(/^GET\s*\/v1\/postback\/\{partner_id\}/);
    // An operation opens with its responses, from the document's schemas.
    await page.locator('.opblock-summary', { hasText: '/v1/offers/instances' }).click();
    const responses = page.locator('.opblock.is-open .responses-table .response-col_status');
    await responses.first().waitFor();
    expect(await responses.allTextContents()).toEqual(expect.arrayContaining(['200', '400', '401', '403', '405', '503']));
    // …the success with its examples to choose from, by their summaries.
    const success = document.paths['/v1/offers/instances']!.post!.responses['200']!.content!['application/json'] as unknown as { examples: Record<string, { summary: string }> };
    const examples = page.locator('.opblock.is-open .responses-table .examples-select select').first();
    expect(await examples.locator('option').allTextContents()).toEqual(Object.values(success.examples).map((example) => example.summary));

    expect(elsewhere).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(browser.scriptEvents).toEqual([]);
    expect(browser.serverErrors).toEqual([]);
  });
});
