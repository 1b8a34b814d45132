/**
 * The ISO 4217 currencies money is accepted in (List One as of 2026, codes that have a minor
 * unit), with the fraction digits of that minor unit. A fixed list, not the runtime's: Node's ICU
 * list changes with the Node version (Node 20's lacks the fund codes CLF, UYI, UYW and VED, and
 * still has the withdrawn HRK, SLL, CUC and ZWL), and whether a postback is accepted must not
 * depend on the Node a process runs on. Precious metals, XDR, XSU, XUA and the test codes have
 * no minor unit: nothing is paid in them.
 */
const ZERO_DIGITS = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const THREE_DIGITS = 'BHD IQD JOD KWD LYD OMR TND';
const FOUR_DIGITS = 'CLF UYW';
const TWO_DIGITS =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW ' +
  'CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS ' +
  'INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN ' +
  'NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC ' +
  'SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG';

const MINOR_UNITS: ReadonlyMap<string, number> = new Map(
  ([[ZERO_DIGITS, 0], [TWO_DIGITS, 2], [THREE_DIGITS, 3], [FOUR_DIGITS, 4]] as const).flatMap(([codes, digits]) => codes.split(' ').map((code) => [code, digits] as const)),
);

/** Every accepted code, in alphabetical order. */
export const CURRENCIES: readonly string[] = [...MINOR_UNITS.keys()].sort();

/** The shape of an ISO 4217 code; only the codes listed above are accepted. */
export const CURRENCY_CODE = /^[A-Z]{3}$/;

/** An uppercase ISO 4217 code money is accepted in. */
export function isKnownCurrency(code: string): boolean {
  return MINOR_UNITS.has(code);
}

/** Fraction digits of an accepted currency's minor unit (JPY 0, USD 2, BHD 3, CLF 4); undefined for any other code. */
export function minorUnitsOf(code: string): number | undefined {
  return MINOR_UNITS.get(code);
}
