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
    const kind = unstorableKind(value);
    return kind && { path: path || 'value', kind };
  }
  if (value === null || typeof value !== 'object' || value instanceof Date || ArrayBuffer.isView(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const at = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    // A key is stored as text too (jsonb in a read model, a map in an event): a NUL in one made
    // every apply of its event fail, and with it every command waiting for that read model.
    const keyKind = Array.isArray(value) ? undefined : unstorableKind(key);
    if (keyKind) return { path: `${path ? `${path}.` : ''}${JSON.stringify(key)} (a key)`, kind: keyKind };
    const found = unstorableText(inner, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

function unstorableKind(text: string): keyof typeof UNSTORABLE | undefined {
  if (text.includes(NUL)) return 'nul';
  return LONE_SURROGATE.test(text) ? 'surrogate' : undefined;
}
