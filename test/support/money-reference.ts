/**
 * Money computed with integers only, written independently of the code under test: ISO 4217
 * minor units from the standard's list and a half-up payout of amount × rate / 100.
 */

/** ISO 4217 minor units, written out from the standard's list: every other accepted code has 2. */
const ISO_DIGITS: Record<string, number> = {
  ...Object.fromEntries('BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'.split(' ').map((code) => [code, 0])),
  ...Object.fromEntries('BHD IQD JOD KWD LYD OMR TND'.split(' ').map((code) => [code, 3])),
  CLF: 4,
  UYW: 4,
};
export const digitsOf = (code: string) => ISO_DIGITS[code] ?? 2;

/** A decimal text as an integer and its power-of-ten scale. */
export function scaled(text: string): { units: bigint; scale: number } {
  const [whole, fraction = ''] = text.split('.');
  return { units: BigInt(`${whole}${fraction}`), scale: fraction.length };
}

/** units / 10^digits printed with exactly that many fraction digits. */
export function printed(units: bigint, digits: number): string {
  const text = units.toString().padStart(digits + 1, '0');
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** amount × rate / 100 rounded half-up to `digits` fraction digits. */
export function referencePayout(amount: string, rate: string, digits: number): string {
  const a = scaled(amount);
  const r = scaled(rate);
  const numerator = a.units * r.units * 10n ** BigInt(digits);
  const denominator = 10n ** BigInt(a.scale + r.scale + 2);
  return printed((2n * numerator + denominator) / (2n * denominator), digits);
}
