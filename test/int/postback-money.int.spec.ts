import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { exportEvents } from '../../services/export/export-events.js';
import { exportReadModel } from '../../services/export/export-read-model.js';
import { parseExportFlags } from '../../services/export/options.js';
import { FORMATS } from '../../services/export/schema-document.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { readExport, type Row } from '../support/export-files.js';
import { digitsOf, referencePayout } from '../support/money-reference.js';
import { currency, decimalText, withoutTrailingZeros } from '../support/postback-arbitraries.js';
import { postbackWorld, postPostback } from '../support/postback-world.js';
import { details } from '../support/serving-fixtures.js';

/** Accepted amounts, the grammar's edges weighted in: zero, the largest, the finest, trailing zeros, half-units. */
const amount = fc.oneof(
  decimalText,
  fc.constantFrom('0', '0.0', '0.00000001', '999999999999999.99999999', '100000000000000', '1.00000000', '0.005', '0.0005', '2.5', '12.50'),
);
/** Every accepted currency, and weighted in those whose minor unit is not 2 (JPY 0, BHD and IQD 3, CLF 4). */
const code = fc.oneof(currency, fc.constantFrom('JPY', 'KRW', 'BHD', 'IQD', 'CLF', 'USD'));

interface Recorded {
  correlation_id: string;
  amount: string;
  currency: string;
  payout_amount: string;
  payout_currency: string;
}

/** The money columns of a row, as an export or the ledger holds them. */
const moneyOf = (row: Row) => ({ amount: row.amount, currency: row.currency, payout_amount: row.payout_amount, payout_currency: row.payout_currency });

describe('money from a postback to the ledger and the exports', () => {
  let t: TestRuntime & { app: Awaited<ReturnType<typeof createTestApp>>['app'] };
  let projectors: RunningProjectors;
  let world: Awaited<ReturnType<typeof postbackWorld>>;
  let dir: string;
  /** CPS offers by rate, each with a served card: 7.5 %, 100 % (a half-unit amount is paid at a tie) and the finest rate below it. */
  const cards = new Map<string, string>();
  const recorded = new Map<string, Recorded>();
  let n = 0;

  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'kafka' });
    projectors = await startProjectors(t.runtime);
    world = await postbackWorld(t.runtime);
    dir = mkdtempSync(join(tmpdir(), 'postback-money-'));
    cards.set('7.5', (await world.serve(world.cpsOffer)).offer_instance_id);
    for (const rate of ['100', '99.99999999']) {
      const offer = await world.admin.offer({
        partner_id: world.partner,
        details: { ...details(`cps-${rate}`), goals: [{ event: 'sale', pricing: { model: 'cps', rate } }] },
        destination_url: 'https://shop.example/s',
      });
      cards.set(rate, (await world.serve(offer)).offer_instance_id);
    }
  }, 120_000);
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('records any accepted amount as its exact value and pays rate × amount exactly, rounded half-up to the currency', async () => {
    await fc.assert(
      fc.asyncProperty(amount, code, fc.constantFrom(...cards.keys()), async (sent, currencyCode, rate) => {
        const body = { event_name: 'sale', offer_instance_id: cards.get(rate)!, event_id: `money-${(n += 1)}-${Date.now()}`, amount: sent, currency: currencyCode };
        const response = await postPostback(t.app, world.partner, body);
        expect(response.statusCode, response.body).toBe(200);
        const correlationId = response.json().data.correlation_id as string;
        const expected = { amount: withoutTrailingZeros(sent), currency: currencyCode, payout_amount: referencePayout(sent, rate, digitsOf(currencyCode)), payout_currency: currencyCode };
        const { rows } = await t.runtime.db.query<Row>(
          `SELECT c.amount::text AS amount, c.currency, c.payout_amount::text AS payout_amount, c.payout_currency,
                  l.amount::text AS logged_amount, l.payout_amount::text AS logged_payout
           FROM conversions c JOIN postback_log l USING (correlation_id) WHERE correlation_id = $1`,
          [correlationId],
        );
        expect(rows).toEqual([{ ...expected, logged_amount: expected.amount, logged_payout: expected.payout_amount }]);
        recorded.set(correlationId, { correlation_id: correlationId, ...expected });
      }),
      { numRuns: 60 },
    );
  }, 180_000);

  it.each(FORMATS)('%s: the postbacks topic and both ledger tables export every amount and payout as recorded', async (format) => {
    expect(recorded.size).toBeGreaterThan(0);
    const parsed = parseExportFlags({ topic: 'postbacks', format, out: join(dir, `topic.${format}`) });
    if (parsed.kind !== 'events') throw new Error('not an events export');
    await exportEvents(t.runtime.eventLog, { ...parsed.request, topicPrefix: t.topicPrefix });
    const files = [join(dir, `topic.${format}`)];
    for (const readModel of ['conversions', 'postback_log'] as const) {
      const out = join(dir, `${readModel}.${format}`);
      await exportReadModel(t.runtime.db, { readModel, format, out });
      files.push(out);
    }
    for (const file of files) {
      const { rows } = await readExport(file, format);
      const byId = new Map(rows.map((row) => [row.correlation_id as string, row]));
      for (const { correlation_id, ...money } of recorded.values()) expect(moneyOf(byId.get(correlation_id) ?? {}), `${file} ${correlation_id}`).toEqual(money);
    }
  }, 120_000);
});
