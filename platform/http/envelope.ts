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

export function failure<E extends object>(code: string, message: string, extra?: E): Envelope<Record<string, never>, E> {
  return { code, message, data: {}, extra: extra ?? ({} as E) };
}
