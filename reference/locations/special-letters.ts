/**
 * Letters that Unicode decomposition does not reduce to a base letter plus marks, and what a
 * search treats them as, so "Łódź", "Gießen" and "Ærø" find the catalogs' "Lodz", "Giessen" and
 * "Aero". Both catalogs' folding applies it to lower-cased text; every value is letters only.
 */
export const SPECIAL_LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss', ς: 'σ', ø: 'o', æ: 'ae', œ: 'oe', đ: 'd', ð: 'd', ł: 'l', ı: 'i', þ: 'th', ħ: 'h',
};

const SPECIAL_PATTERN = new RegExp(`[${Object.keys(SPECIAL_LETTERS).join('')}]`, 'gu');

/** `lowerCased` with each special letter replaced. */
export function foldSpecialLetters(lowerCased: string): string {
  return lowerCased.replace(SPECIAL_PATTERN, (letter) => SPECIAL_LETTERS[letter] ?? letter);
}
