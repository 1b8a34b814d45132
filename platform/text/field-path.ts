/** Names longer than this are cut in messages (a client can send a key of any length). */
const SHOWN_NAME_LENGTH = 100;
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A field's place in a JSON body as clients read it: `context.categories[2]`. Array positions are
 * numbers in brackets; an object key that is not a plain name (`"12"`, `"a b"`, `""`) is quoted in
 * brackets, so a key spelled with digits never reads as a position; long keys are cut.
 */
export function fieldPath(parts: readonly (string | number)[]): string {
  return parts
    .map((part, index) => {
      if (typeof part === 'number') return `[${part}]`;
      if (PLAIN_NAME.test(part) && part.length <= SHOWN_NAME_LENGTH) return index === 0 ? part : `.${part}`;
      return `[${JSON.stringify(part.length > SHOWN_NAME_LENGTH ? `${part.slice(0, SHOWN_NAME_LENGTH)}…` : part)}]`;
    })
    .join('');
}
