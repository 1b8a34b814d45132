import { NUL } from '../platform/db/storable-text.js';

/** What each kind of unstorable text is, as a message says it. */
export const UNSTORABLE = {
  nul: 'a NUL character (U+0000), which no read model can store',
  surrogate: 'a lone UTF-16 surrogate (half of a character), which UTF-8 cannot carry: it would be stored as U+FFFD',
} as const;

/** An unpaired surrogate; a pair is one code point here (the u flag), so it is not matched. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The path of the first string `value` holds that the log or the read models would not keep as
 * given, if any. Command input is checked when it is validated (a NUL would fail the command's
 * own reads in Postgres before anything is appended), and every event again on its way to the
 * log (append.ts), so a value no check caught never reaches it (storable-text.ts says what
 * happens to one that did).
 */
export function unstorableText(value: unknown, path = ''): { path: string; kind: keyof typeof UNSTORABLE } | undefined {
  if (typeof value === 'string') {
    if (value.includes(NUL)) return { path: path || 'value', kind: 'nul' };
    return LONE_SURROGATE.test(value) ? { path: path || 'value', kind: 'surrogate' } : undefined;
  }
  if (value === null || typeof value !== 'object' || value instanceof Date || ArrayBuffer.isView(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = unstorableText(inner, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}
