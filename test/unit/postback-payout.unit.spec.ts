import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalDecimal, minorUnits, payoutFor, type GoalPricing } from '../../commands/postbacks/payout.js';
import { CURRENCIES, isKnownCurrency } from '../../schemas/documents/currency.js';
import { priceConversion } from '../../commands/postbacks/pricing.js';
import { PostbackRejection } from '../../commands/postbacks/rejections.js';
import { currency, decimalText, withoutTrailingZeros } from '../support/postback-arbitraries.js';
import { digitsOf, printed, referencePayout, scaled } from '../support/money-reference.js';

const cpa = (amount: string | null, code: string | null): GoalPricing => ({ model: 'cpa', amount, currency: code, rate: null });
const cps = (rate: string | null): GoalPricing => ({ model: 'cps', amount: null, currency: null, rate });

/** The accepted grammar, written out here so the properties do not test the code against itself. */
const ACCEPTED = /^(0|[1-9][0-9]{0,14})(\.[0-9]{1,8})?$/;

describe('canonicalDecimal', () => {
  it.each([
    ['12.50', '12.5'],
    ['3.0', '3'],
    ['0', '0'],
    ['0.00', '0'],
    ['0.05', '0.05'],
    ['100', '100'],
    ['999999999999999.99999999', '999999999999999.99999999'],
  ])('%s → %s', (text, canonical) => {
    expect(canonicalDecimal(text)).toBe(canonical);
  });

  it.each(['', '-1', '+1', '1e3', '1E3', '01', '00', '00.5', '1.', '.5', ' 1', '1 ', '1,50', '1.123456789', '1234567890123456', 'NaN', 'Infinity', '0x10', '１２', '12.5.0'])(
    'refuses %j',
    (text) => {
      expect(canonicalDecimal(text)).toBeUndefined();
    },
  );

  it('accepts exactly the grammar, is idempotent, and never ends in a fraction zero or a point', () => {
    const candidates = fc.oneof(decimalText, fc.string({ unit: fc.constantFrom(...'0123456789.-+e '), maxLength: 26 }), fc.string());
    fc.assert(
      fc.property(candidates, (text) => {
        const canonical = canonicalDecimal(text);
        expect(canonical !== undefined).toBe(ACCEPTED.test(text));
        if (canonical === undefined) return;
        expect(canonicalDecimal(canonical)).toBe(canonical);
        expect(canonical).not.toMatch(/\.[0-9]*0$|\.$/);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps the value: same integer at 8 fraction digits, same text once trailing zeros are dropped', () => {
    const at8 = (text: string) => scaled(text).units * 10n ** BigInt(8 - scaled(text).scale);
    fc.assert(
      fc.property(decimalText, (text) => {
        const canonical = canonicalDecimal(text)!;
        expect(at8(canonical)).toBe(at8(text));
        expect(canonical).toBe(withoutTrailingZeros(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('minorUnits', () => {
  it('are ISO 4217\'s: JPY 0, USD 2, BHD 3', () => {
    expect([minorUnits('JPY'), minorUnits('USD'), minorUnits('BHD')]).toEqual([0, 2, 3]);
  });

  it('are ISO 4217\'s where ICU prints fewer digits in practice (IQD 3; HUF, IDR, COP, PKR 2)', () => {
    expect(['IQD', 'HUF', 'IDR', 'COP', 'PKR', 'ISK', 'CLP'].map(minorUnits)).toEqual([3, 2, 2, 2, 2, 0, 0]);
  });

  it('are ISO 4217\'s for every accepted currency', () => {
    for (const code of CURRENCIES) expect(minorUnits(code), code).toBe(digitsOf(code));
  });

  it('accept the fund codes ISO 4217 lists, refuse withdrawn codes and codes without a minor unit, whatever the runtime lists', () => {
    expect(['CLF', 'UYW', 'UYI', 'BOV', 'VED', 'XCG'].filter(isKnownCurrency)).toEqual(['CLF', 'UYW', 'UYI', 'BOV', 'VED', 'XCG']);
    expect(['HRK', 'SLL', 'CUC', 'ZWL', 'XDR', 'XAU', 'XTS', 'XXX', 'usd', 'US', 'USDX'].filter(isKnownCurrency)).toEqual([]);
    expect(CURRENCIES.length).toBeGreaterThan(150);
  });
});

describe('payoutFor: cpa', () => {
  it('pays the goal amount and currency, printed in the currency minor units, whatever is reported', () => {
    expect(payoutFor(cpa('12.5', 'USD'), {})).toEqual({ ok: true, amount: '12.50', currency: 'USD' });
    expect(payoutFor(cpa('12.50', 'USD'), { amount: '999', currency: 'EUR' })).toEqual({ ok: true, amount: '12.50', currency: 'USD' });
    expect(payoutFor(cpa('500', 'JPY'), {})).toEqual({ ok: true, amount: '500', currency: 'JPY' });
    expect(payoutFor(cpa('1.5', 'BHD'), {})).toEqual({ ok: true, amount: '1.500', currency: 'BHD' });
  });

  it('rounds a stored amount finer than the minor unit half-up', () => {
    expect(payoutFor(cpa('12.5', 'JPY'), {})).toMatchObject({ amount: '13' });
    expect(payoutFor(cpa('12.49', 'JPY'), {})).toMatchObject({ amount: '12' });
    expect(payoutFor(cpa('1.2345', 'BHD'), {})).toMatchObject({ amount: '1.235' });
    expect(payoutFor(cpa('1.2344', 'BHD'), {})).toMatchObject({ amount: '1.234' });
  });

  it.each([
    [cpa(null, 'USD')],
    [cpa('12.50', null)],
    [cpa('12,50', 'USD')],
    [cpa('-1', 'USD')],
    [cpa('12.50', 'usd')],
    [cpa('12.50', 'ABC')],
  ])('%j → invalid_goal_pricing', (goal) => {
    expect(payoutFor(goal, { amount: '10', currency: 'USD' })).toMatchObject({ ok: false, reason: 'invalid_goal_pricing' });
  });
});

describe('payoutFor: cps', () => {
  it('pays rate % of the reported amount in the reported currency', () => {
    expect(payoutFor(cps('7.5'), { amount: '100', currency: 'USD' })).toEqual({ ok: true, amount: '7.50', currency: 'USD' });
    expect(payoutFor(cps('7.5'), { amount: '1000', currency: 'JPY' })).toEqual({ ok: true, amount: '75', currency: 'JPY' });
    expect(payoutFor(cps('7.5'), { amount: '1010', currency: 'JPY' })).toEqual({ ok: true, amount: '76', currency: 'JPY' });
    expect(payoutFor(cps('10'), { amount: '12.345', currency: 'BHD' })).toEqual({ ok: true, amount: '1.235', currency: 'BHD' });
    expect(payoutFor(cps('0'), { amount: '100', currency: 'USD' })).toEqual({ ok: true, amount: '0.00', currency: 'USD' });
  });

  it('rounds half-up at the minor unit: exactly half goes up, just below half goes down', () => {
    expect(payoutFor(cps('10'), { amount: '0.05', currency: 'USD' })).toMatchObject({ amount: '0.01' });
    expect(payoutFor(cps('10'), { amount: '0.04', currency: 'USD' })).toMatchObject({ amount: '0.00' });
    expect(payoutFor(cps('50'), { amount: '0.01', currency: 'USD' })).toMatchObject({ amount: '0.01' });
    expect(payoutFor(cps('49.99999999'), { amount: '0.01', currency: 'USD' })).toMatchObject({ amount: '0.00' });
  });

  it('stays exact where floats would not (0.1 + 0.2 territory, 23-digit amounts)', () => {
    expect(payoutFor(cps('100'), { amount: '0.285', currency: 'USD' })).toMatchObject({ amount: '0.29' });
    expect(payoutFor(cps('1.005'), { amount: '100', currency: 'USD' })).toMatchObject({ amount: '1.01' });
    expect(payoutFor(cps('100'), { amount: '999999999999999.99999999', currency: 'USD' })).toMatchObject({ amount: '1000000000000000.00' });
  });

  it('without a reported amount (or currency) → missing_amount; without a rate → invalid_goal_pricing', () => {
    expect(payoutFor(cps('7.5'), {})).toMatchObject({ ok: false, reason: 'missing_amount' });
    expect(payoutFor(cps('7.5'), { amount: '100' })).toMatchObject({ ok: false, reason: 'missing_amount' });
    expect(payoutFor(cps(null), { amount: '100', currency: 'USD' })).toMatchObject({ ok: false, reason: 'invalid_goal_pricing' });
    expect(payoutFor(cps('7,5'), { amount: '100', currency: 'USD' })).toMatchObject({ ok: false, reason: 'invalid_goal_pricing' });
  });

  it('priceConversion refuses a mapped goal that cannot be priced (terminal invalid_goal_pricing), and leaves an unmapped event unpriced', () => {
    const goals = [{ event: 'install', pricing: { model: 'cpa' as const, amount: '2', currency: 'ABC' } }];
    const refusal = (() => {
      try {
        priceConversion({ purchase: 'install' }, 'offer', goals, { event_name: 'purchase', event_id: 'e' });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(PostbackRejection);
    expect(refusal).toMatchObject({ reason: 'invalid_goal_pricing', eventLogged: false });
    expect(priceConversion({}, 'offer', goals, { event_name: 'purchase', event_id: 'e' })).toEqual({ goal_event: null, payout_amount: null, payout_currency: null });
  });

  it('priceConversion leaves unmapped an event the partner maps to a goal this offer does not have, never paying another goal', () => {
    const goals = [{ event: 'sale', pricing: { model: 'cpa' as const, amount: '2', currency: 'USD' } }];
    expect(priceConversion({ purchase: 'install' }, 'offer', goals, { event_name: 'purchase', event_id: 'e' })).toEqual({ goal_event: null, payout_amount: null, payout_currency: null });
    expect(priceConversion({ purchase: 'sale' }, 'offer', goals, { event_name: 'purchase', event_id: 'e' })).toEqual({ goal_event: 'sale', payout_amount: '2.00', payout_currency: 'USD' });
  });

  it('equals an integer-only computation for any amount, rate and currency', () => {
    const rate = fc.oneof(decimalText, fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 99 })).map(([whole, cents]) => `${whole}.${cents}`));
    fc.assert(
      fc.property(decimalText, rate, currency, (amount, rate, code) => {
        const expected = referencePayout(amount, canonicalDecimal(rate) ?? rate, digitsOf(code));
        expect(payoutFor(cps(rate), { amount, currency: code })).toEqual({ ok: true, amount: expected, currency: code });
      }),
      { numRuns: 2000 },
    );
  });

  it('at exact half-units rounds up, and a hair below rounds down', () => {
    const code = fc.constantFrom('JPY', 'USD', 'EUR', 'BHD', 'KWD', 'CLP', 'IQD', 'HUF');
    fc.assert(
      fc.property(code, fc.bigInt({ min: 0n, max: 10n ** 12n }), (code, units) => {
        const digits = digitsOf(code);
        const base = printed(units, digits); // an exact number of minor units
        const half = `${base}${digits === 0 ? '.' : ''}5`; // base + half a minor unit
        expect(payoutFor(cps('100'), { amount: half, currency: code })).toMatchObject({ amount: printed(units + 1n, digits) });
        expect(payoutFor(cps('100'), { amount: `${base}${digits === 0 ? '.' : ''}4999`, currency: code })).toMatchObject({ amount: base });
        // An odd number of minor units at 50 % is exactly half of one.
        const odd = printed(2n * units + 1n, digits);
        expect(payoutFor(cps('50'), { amount: odd, currency: code })).toMatchObject({ amount: printed(units + 1n, digits) });
      }),
      { numRuns: 1000 },
    );
  });

  it('cpa pays the stored amount at the minor units for any amount and currency', () => {
    fc.assert(
      fc.property(decimalText, currency, (amount, code) => {
        expect(payoutFor(cpa(amount, code), {})).toEqual({ ok: true, amount: referencePayout(amount, '100', digitsOf(code)), currency: code });
      }),
      { numRuns: 1000 },
    );
  });
});
