/** The reference's response envelope, used by every JSON route. */
export interface Envelope<D extends object = Record<string, unknown>, E extends object = Record<string, unknown>> {
  code: string;
  message: string;
  data: D;
  extra: E;
}

export function success<D extends object, E extends object = Record<string, never>>(data: D, extra?: E): Envelope<D, E> & { code: 'SUCCESS'; message: '' } {
  return { code: 'SUCCESS', message: '', data, extra: extra ?? ({} as E) };
}

/**
 * Control and format characters (Unicode Cc and Cf: line breaks, escapes, bidi overrides and
 * marks, zero-width characters) in a failure's message are written as `\uXXXX`. Messages quote
 * what was sent, and an operator or a log reading them must see those characters, not have them
 * reorder or hide the text around them (a quoted `2250\u200b` looked like `2250`).
 */
const UNSEEN = /[\p{Cc}\p{Cf}]/gu;
const shown = (message: string) => message.replace(UNSEEN, (unit) => `\\u${unit.codePointAt(0)!.toString(16).padStart(4, '0')}`);

export function failure<E extends object>(code: string, message: string, extra?: E): Envelope<Record<string, never>, E> {
  return { code, message: shown(message), data: {}, extra: extra ?? ({} as E) };
}
