const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** The shape of an ISO 4217 code; only the codes this runtime knows are accepted. */
export const CURRENCY_CODE = /^[A-Z]{3}$/;

/** An uppercase ISO 4217 code this runtime knows. */
export function isKnownCurrency(code: string): boolean {
  return CURRENCY_CODE.test(code) && KNOWN_CURRENCIES.has(code);
}
