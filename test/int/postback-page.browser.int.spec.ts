import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser, lowContrastText, type Browser } from '../support/browser.js';
import { ADMIN_TOKEN, HOSTILE_EVENT, HOSTILE_TXN, UNKNOWN_PARTNER, startPostbackPageApp, type PostbackPageWorld } from '../support/postback-page-world.js';

/** Screenshots of failed tests land here. */
const OUTPUT = fileURLToPath(new URL('../../test-results/postback-page/', import.meta.url));

/** The operator page in Debian's Chromium, driven like an operator would: the form, its links, its buttons. */
describe('the postback log page in a headless browser', () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  let w: PostbackPageWorld;
  let browser: Browser;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    ({ app, world: w, close } = await startPostbackPageApp());
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    browser = await launchBrowser(OUTPUT);
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    await close?.();
  });
  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(async () => {
      const path = await browser.screenshot(task.name);
      process.stderr.write(`screenshot of the failed test: ${path}\n`);
    });
  });
  // Every test, run alone or in any order: no page it opened answered 5xx or ran a script.
  afterEach(() => {
    expect(browser.serverErrors).toEqual([]);
    expect(browser.scriptEvents).toEqual([]);
  });

  const rows = () => page.locator('tr[data-correlation-id]').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-correlation-id')!));
  const order = () => new Map(w.logOrder.map((id, index) => [id, index]));
  const inLogOrder = (ids: (string | undefined)[]) => ids.map((id) => id!).sort((a, b) => order().get(a)! - order().get(b)!);

  /** Clears the form, fills it and submits it; the page's HTTP status. */
  async function searchFor(fields: Record<string, string>, selects: Record<string, string> = {}): Promise<number> {
    await page.goto(`${origin}/admin/postbacks`);
    for (const [name, value] of Object.entries(fields)) await page.fill(`form.search [name="${name}"]`, value);
    for (const [name, value] of Object.entries(selects)) await page.selectOption(`form.search select[name="${name}"]`, value);
    const [response] = await Promise.all([page.waitForNavigation(), page.click('form.search button[type="submit"]')]);
    return response!.status();
  }
  async function follow(text: string): Promise<number> {
    const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: text, exact: true }).first().click()]);
    return response!.status();
  }

  it('asks for the token, then signs in with a cookie scripts cannot read', async () => {
    const first = await page.goto(`${origin}/admin/postbacks?decision=accepted`);
    expect(first!.status()).toBe(401);
    expect(await page.title()).toBe('Sign in · Operator pages · offer-ledger admin');
    await page.fill('input[name="token"]', 'not-the-admin-token-0123456789');
    const [refused] = await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(refused!.status()).toBe(401);
    await expect(page.locator('[role="alert"]').textContent()).resolves.toContain('That token was not accepted.');
    expect(await page.title()).toBe('Sign-in refused · Operator pages · offer-ledger admin');
    expect(await page.inputValue('input[name="token"]')).toBe('');
    await page.fill('input[name="token"]', ADMIN_TOKEN);
    const [signedIn] = await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(signedIn!.status()).toBe(200);
    // Back where the sign-in was asked for.
    expect(page.url()).toBe(`${origin}/admin/postbacks?decision=accepted`);
    const [session] = await browser.context.cookies(`${origin}/admin/postbacks`);
    expect(session).toMatchObject({ name: 'admin_session', httpOnly: true, sameSite: 'Strict', path: '/admin' });
    expect(session!.value).not.toContain(ADMIN_TOKEN);
    expect(await page.evaluate(() => document.cookie)).toBe('');
  });

  it('lists the log with decision, reason, attribution path, payout and log position', async () => {
    expect(await searchFor({})).toBe(200);
    expect(await rows()).toEqual(w.logOrder);
    const accepted = page.locator(`tr[data-correlation-id="${w.posted.accepted}"]`);
    const text = (await accepted.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('accepted');
    expect(text).toContain('recorded and counted: goal install');
    expect(text).toContain(`matched by svc_click_id → click ${w.clickA} → card ${w.cards.a.offer_instance_id} → offer ${w.world.cpaOffer}`);
    expect(text).toContain('12.50 USD');
    expect(text).toMatch(/postbacks partition \d+, offset \d+/);
  });

  it.each([
    ['correlation id', () => ({ correlation_id: w.posted.accepted! }), {}, () => [w.posted.accepted, w.posted.duplicate, w.posted.conflict]],
    ['partner', () => ({ partner_id: w.world.otherPartner }), {}, () => [w.posted.foreign]],
    ['identity (any field)', () => ({ identity: w.ids.event }), {}, () => [w.posted.accepted, w.posted.duplicate, w.posted.conflict]],
    ['identity (order_id)', () => ({ identity: w.ids.order }), { identity_kind: 'order_id' }, () => [w.posted.unmapped]],
    ['identity (partner_txn_id, with markup)', () => ({ identity: HOSTILE_TXN }), { identity_kind: 'partner_txn_id' }, () => [w.posted.hostile]],
    ['click id', () => ({ click_id: w.clickA }), {}, () => [w.posted.accepted, w.posted.duplicate, w.posted.conflict]],
    ['card', () => ({ instance_id: w.cards.b.offer_instance_id! }), {}, () => [w.posted.unmapped, w.posted.hostile]],
    ['decision', () => ({}), { decision: 'identity_conflict' }, () => [w.posted.conflict]],
    ['decision and partner', () => ({ partner_id: w.world.partner }), { decision: 'unmapped' }, () => [w.posted.unmapped, w.posted.hostile]],
  ])('searches by %s', async (_name, fields, selects: Record<string, string>, expected) => {
    expect(await searchFor(fields(), selects)).toBe(200);
    expect(await rows()).toEqual(inLogOrder(expected()));
  });

  it('searches by time range (UTC) with the form\'s date fields', async () => {
    // datetime-local takes whole seconds: the range is the seconds the log spans, widened by one.
    const seconds = w.logRows.map((row) => Math.floor(row.received_at.getTime() / 1000) * 1000);
    const field = (ms: number) => new Date(ms).toISOString().slice(0, 19);
    const from = Math.min(...seconds);
    const to = Math.max(...seconds) + 1000;
    expect(await searchFor({ from: field(from), to: field(to) })).toBe(200);
    expect(await rows()).toEqual(w.logOrder);
    expect(await searchFor({ from: field(to), to: field(to + 60_000) })).toBe(200);
    expect(await rows()).toEqual([]);
  });

  it('keeps a time range a link gives in RFC 3339 with an offset: shown in UTC, sent again by the next search', async () => {
    const from = new Date(Math.min(...w.logRows.map((row) => row.received_at.getTime())) - 1_000);
    from.setUTCMilliseconds(0);
    // The same instant two hours ahead of UTC, as a partner's report or another tool writes it.
    const ahead = new Date(from.getTime() + 2 * 3_600_000).toISOString().slice(0, 19) + '+02:00';
    expect((await page.goto(`${origin}/admin/postbacks?from=${encodeURIComponent(ahead)}`))!.status()).toBe(200);
    // The browser normalizes a datetime-local value: whole minutes lose their ":00" seconds.
    const shown = from.toISOString().slice(0, 19).replace(/:00$/, '');
    expect(await page.inputValue('form.search [name="from"]')).toBe(shown);
    await page.selectOption('form.search select[name="decision"]', 'accepted');
    await Promise.all([page.waitForURL(/decision=accepted/), page.click('form.search button[type="submit"]')]);
    expect(new URL(page.url()).searchParams.get('from')).toBe(shown);
  });

  it('pages through the log with Older and Newer', async () => {
    expect(await searchFor({ limit: '2' })).toBe(200);
    const seen = [await rows()];
    while ((await page.getByRole('link', { name: 'Older →' }).count()) > 0) {
      expect(await follow('Older →')).toBe(200);
      seen.push(await rows());
    }
    expect(seen.flat()).toEqual(w.logOrder);
    expect(seen.every((ids) => ids.length <= 2)).toBe(true);
    const back: string[][] = [];
    while ((await page.getByRole('link', { name: '← Newer' }).count()) > 0) {
      expect(await follow('← Newer')).toBe(200);
      back.unshift(await rows());
    }
    expect(back.flat()).toEqual(w.logOrder.slice(0, back.flat().length));
    expect(back[0]).toEqual(w.logOrder.slice(0, 2));
  });

  it('says so when nothing matches', async () => {
    expect(await searchFor({ identity: 'no-such-identity' })).toBe(200);
    await expect(page.locator('p.empty').textContent()).resolves.toBe('No postbacks in the log match this search.');
  });

  it('answers bad input with a message on the page, the form kept', async () => {
    expect(await searchFor({ correlation_id: 'not-an-id', click_id: '12345' })).toBe(400);
    const alert = (await page.locator('[role="alert"]').innerText()).replace(/\s+/g, ' ');
    expect(alert).toContain('The search was not run:');
    expect(alert).toContain('correlation_id: expected a UUID');
    expect(alert).toContain('click_id: expected a UUID');
    expect(await page.inputValue('input[name="correlation_id"]')).toBe('not-an-id');
    // A date the form cannot produce, typed into the address bar.
    const typed = await page.goto(`${origin}/admin/postbacks?from=yesterday&limit=0`);
    expect(typed!.status()).toBe(400);
    const text = await page.locator('[role="alert"]').innerText();
    expect(text).toContain('from: expected a time');
    expect(text).toContain('limit: expected a whole number from 1 to 200');
  });

  it('takes a keyboard user from a refused search to the first wrong field, which says what is wrong with it', async () => {
    await page.goto(`${origin}/admin/postbacks`);
    const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute('name'));
    const tabTo = async (name: string) => {
      for (let step = 0; step < 20 && (await focusedName()) !== name; step += 1) await page.keyboard.press('Tab');
      expect(await focusedName()).toBe(name);
    };
    await tabTo('correlation_id');
    await page.keyboard.type('not-an-id');
    await tabTo('click_id');
    await page.keyboard.type('12345');
    const [response] = await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(response!.status()).toBe(400);
    // The summary comes before the form, and focus is on the first field to correct, not at the top of the page.
    expect(await page.evaluate(() => [...document.querySelectorAll('main > *')].map((element) => element.className))).toEqual(['errors', 'search']);
    expect(await focusedName()).toBe('correlation_id');
    // What a screen reader reads with the field: marked invalid, described by its message.
    const described = (name: string) =>
      page.locator(`form.search [name="${name}"]`).evaluate((control) => ({
        invalid: control.getAttribute('aria-invalid'),
        description: (control.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean).map((id) => document.getElementById(id)?.textContent).join(' '),
      }));
    expect(await described('correlation_id')).toEqual({ invalid: 'true', description: 'correlation_id: expected a UUID such as 0193b2c4-5d6e-7f80-9a1b-2c3d4e5f6a7b' });
    expect(await described('click_id')).toEqual({ invalid: 'true', description: 'click_id: expected a UUID such as 0193b2c4-5d6e-7f80-9a1b-2c3d4e5f6a7b' });
    expect(await described('partner_id')).toEqual({ invalid: null, description: '' });
    // Each message links to its field: Enter on it puts the keyboard there.
    await page.getByRole('link', { name: 'click_id', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/#search-click_id$/);
    expect(await focusedName()).toBe('click_id');
  });

  it('titles each page by where the user is, so tabs and history tell them apart', async () => {
    const titleOf = async (path: string) => {
      await page.goto(`${origin}${path}`);
      return page.title();
    };
    const suffix = ' · Postback log · offer-ledger admin';
    expect(await titleOf('/admin/postbacks')).toBe(`Newest postbacks${suffix}`);
    expect(await titleOf(`/admin/postbacks?partner_id=${w.world.partner}`)).toBe(`Search results${suffix}`);
    expect(await titleOf('/admin/postbacks?decision=refused')).toBe(`Refused before the log${suffix}`);
    expect(await titleOf('/admin/postbacks?limit=2')).toBe(`Newest postbacks${suffix}`);
    await follow('Older →');
    expect(await page.title()).toBe(`Newest postbacks, older page${suffix}`);
    await follow('← Newer');
    expect(await page.title()).toBe(`Newest postbacks, newer page${suffix}`);
    expect(await titleOf('/admin/postbacks?from=yesterday')).toBe(`Error: search not run${suffix}`);
    expect(await titleOf(`/admin/postbacks/${w.posted.accepted}`)).toBe(`Postback ${w.posted.accepted}${suffix}`);
    expect(await titleOf(`/admin/postbacks/${w.posted.refusedPartner}`)).toBe(`Refused postback ${w.posted.refusedPartner}${suffix}`);
    expect(await titleOf('/admin/postbacks/not-a-uuid')).toBe(`Error: not a correlation id${suffix}`);
    expect(await titleOf('/admin/postbacks/0193b2c4-0000-7000-8000-000000000000')).toBe(`Not found${suffix}`);
    expect(await titleOf('/admin/postbacks/a/b')).toBe('Not found · Operator pages · offer-ledger admin');
  });

  it('has text readable against its background (WCAG AA) on the listings, an error and the details', async () => {
    for (const path of ['/admin/postbacks', '/admin/postbacks?correlation_id=not-an-id', `/admin/postbacks/${w.posted.unmapped}`, `/admin/postbacks/${w.posted.refusedPartner}`]) {
      await page.goto(`${origin}${path}`);
      expect({ path, low: await lowContrastText(page) }).toEqual({ path, low: [] });
    }
  });

  it('keeps the page as wide as a phone: a wide table scrolls sideways in its own box, by keyboard too', async () => {
    const desktop = page.viewportSize();
    await page.setViewportSize({ width: 375, height: 740 });
    try {
      for (const path of ['/admin/postbacks', '/admin/postbacks?decision=refused', `/admin/postbacks/${w.posted.refusedPartner}`, `/admin/postbacks/${w.posted.conflict}`]) {
        await page.goto(`${origin}${path}`);
        const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: document.documentElement.clientWidth }));
        expect({ path, ...widths }).toEqual({ path, page: 375, screen: 375 });
      }
      await page.goto(`${origin}/admin/postbacks`);
      const box = page.getByRole('region', { name: 'Postbacks in the log' });
      expect(await box.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
      // Every row is still there, reachable by scrolling the box.
      expect(await rows()).toEqual(w.logOrder);
      await box.focus();
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => box.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
    } finally {
      await page.setViewportSize(desktop!);
    }
  });

  it('answers a very long paste with its message on the page and the form, not a refusal of the address', async () => {
    const pasted = '€'.repeat(20_000);
    expect(await searchFor({ identity: pasted, correlation_id: pasted })).toBe(400);
    const alert = await page.locator('[role="alert"]').innerText();
    expect(alert).toContain('identity: expected 1 to 200 characters');
    expect(alert).toContain('correlation_id: expected a UUID');
    expect(await page.inputValue('form.search [name="identity"]')).toBe('€'.repeat(400));
  });

  it('shows partner-supplied markup as text and runs none of it', async () => {
    expect(await searchFor({})).toBe(200);
    const hostile = page.locator(`tr[data-correlation-id="${w.posted.hostile}"]`);
    expect(await hostile.innerText()).toContain(HOSTILE_EVENT);
    expect(await hostile.innerText()).toContain(HOSTILE_TXN);
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await page.title()).not.toContain('pwned');
  });

  it('shows refusals that never reached the log, marked as not in the ledger', async () => {
    expect(await searchFor({}, { decision: 'refused' })).toBe(200);
    await expect(page.locator('.notice').innerText()).resolves.toContain('Not in the ledger.');
    const refusalsText = await page.locator('table.refusals').innerText();
    expect(refusalsText).toContain('partner_not_found');
    expect(refusalsText).toContain(UNKNOWN_PARTNER);
    expect(refusalsText).toContain('invalid_payload');
    expect(await rows()).toEqual([]);
  });

  it('opens a postback, its conversion and its card', async () => {
    expect(await searchFor({ correlation_id: w.posted.conflict! })).toBe(200);
    expect(await follow('details')).toBe(200);
    expect(page.url()).toBe(`${origin}/admin/postbacks/${w.posted.conflict}`);
    expect(await page.locator('h2').allInnerTexts()).toEqual([`Postback ${w.posted.conflict}`, 'Conversion', 'Card', 'Postbacks of this identity']);
    // The conversion: recorded by the first postback of the identity.
    const [response] = await Promise.all([page.waitForNavigation(), page.locator('dt:text-is("recorded by") + dd a').click()]);
    expect(response!.status()).toBe(200);
    expect(page.url()).toBe(`${origin}/admin/postbacks/${w.posted.accepted}`);
    expect(await page.locator('dt:text-is("recorded by") + dd').innerText()).toBe('this postback');
    // The card: its postbacks.
    const [card] = await Promise.all([page.waitForNavigation(), page.locator('dt:text-is("offer_instance_id") + dd a').click()]);
    expect(card!.status()).toBe(200);
    expect(await rows()).toEqual(inLogOrder([w.posted.accepted, w.posted.duplicate, w.posted.conflict]));
  });

  it('signs out', async () => {
    await page.goto(`${origin}/admin/postbacks`);
    const [response] = await Promise.all([page.waitForNavigation(), page.click('header button[type="submit"]')]);
    expect(response!.status()).toBe(200);
    expect(page.url()).toBe(`${origin}/admin/login`);
    expect(await page.title()).toBe('Sign in · Operator pages · offer-ledger admin');
    expect(await lowContrastText(page)).toEqual([]);
    expect(await browser.context.cookies(`${origin}/admin/postbacks`)).toEqual([]);
    expect((await page.goto(`${origin}/admin/postbacks`))!.status()).toBe(401);
  });
});
