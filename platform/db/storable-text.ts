/**
 * Postgres text cannot hold U+0000: a value with one fails the whole statement, and a projection
 * would then retry the same batch forever. The write side refuses such values (commands/append.ts),
 * but an event logged before that guard existed must not stall its projection: the shared row
 * writers store it with U+FFFD in place of each NUL, the same way on every replay.
 */
export const NUL = '\u0000';
export const NUL_STAND_IN = '\ufffd';

export const storableText = (value: string): string => (value.includes(NUL) ? value.replaceAll(NUL, NUL_STAND_IN) : value);
