/**
 * Text folding shared by registry matching and search: case- and accent-insensitive, with
 * punctuation reduced to single spaces so "Baden-Württemberg" and "baden wurttemberg" agree.
 */

import { foldSpecialLetters } from '../special-letters.js';

/** Lower case, no accents, apostrophes dropped, any other non-alphanumeric run → one space. */
export function foldText(value: string): string {
  // Lower-casing after NFKD also folds compatibility letters such as mathematical bold "𝐀".
  return foldSpecialLetters(value.toLowerCase().normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase())
    .replace(/['’ʼ‘`´]/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Administrative type words in the languages our sources use (provider names are English; ISO
 * names are often local). Removing them lets "State of Sao Paulo", "Moscow Oblast" and
 * "Provincia di Torino" meet "Sao Paulo", "Moscow" and "Torino".
 */
const TYPE_WORDS = new Set([
  'state', 'province', 'region', 'prefecture', 'governorate', 'county', 'canton', 'department',
  'district', 'territory', 'union', 'oblast', 'krai', 'kray', 'republic', 'autonomous', 'okrug',
  'community', 'municipality', 'metropolitan', 'special', 'administrative', 'capital', 'federal',
  'national', 'voivodeship', 'city', 'do', 'provincia', 'regione', 'estado', 'departamento',
  'comunidad', 'autonoma', 'foral', 'sheng', 'shi', 'zizhiqu', 'respublika', 'kraj',
  'maakond', 'megye', 'fylke', 'lan', 'zhou', 'zupanija', 'sar',
]);
/** Connecting words that carry no identity. */
const FILLER_WORDS = new Set(['of', 'the', 'and', 'de', 'del', 'la', 'le', 'di', 'du', 'des', 'y', 'et', 'e']);
/**
 * Spelling variants and translations of direction words ("Southern District" = "South District",
 * "Noord-Holland" = "North Holland", "Jawa Barat" = "West Java"), and of "Saint".
 */
const STEMS: Record<string, string> = {
  northern: 'north', southern: 'south', eastern: 'east', western: 'west',
  centre: 'central', center: 'central', norte: 'north', sur: 'south', nord: 'north', sud: 'south',
  oeste: 'west', ouest: 'west', occidental: 'west', oriental: 'east',
  noord: 'north', zuid: 'south', oost: 'east', // Dutch
  utara: 'north', selatan: 'south', timur: 'east', barat: 'west', tengah: 'central', // Indonesian
  shamal: 'north', janub: 'south', // Arabic transliterations
  severnaya: 'north', // Russian transliterations
  st: 'saint', sankt: 'saint',
};

/**
 * Folded name reduced to its identifying words: stems applied, filler and type words and the
 * given extra words (the country's own name) removed. When nothing would be left, only filler
 * and extra words are removed, so "Capital Region" still has a key.
 */
export function stripTypeWords(folded: string, extra: ReadonlySet<string> = new Set()): string {
  const words = folded.split(' ').map((word) => STEMS[word] ?? word)
    .filter((word) => !FILLER_WORDS.has(word) && !extra.has(word));
  const kept = words.filter((word) => !TYPE_WORDS.has(word));
  return (kept.length > 0 ? kept : words).join(' ');
}

/** Variants of one display name worth comparing: whole, without "(...)", each bilingual part. */
export function nameVariants(name: string): string[] {
  const variants = new Set<string>([foldText(name)]);
  const withoutParens = name.replace(/\([^)]*\)/g, ' ');
  if (withoutParens !== name) variants.add(foldText(withoutParens));
  for (const [, inside] of name.matchAll(/\(([^)]*)\)/g)) if (inside) variants.add(foldText(inside));
  // Bilingual or annotated names: "Bruxelles / Brussel", "Wales [Cymru]".
  for (const part of name.split(/\s*[/[\]]\s*/)) if (part.trim()) variants.add(foldText(part));
  // ISO's inverted forms: "Navarra, Comunidad Foral de" -> "Comunidad Foral de Navarra".
  const inverted = /^([^,]+),\s*([^,]+)$/.exec(name);
  if (inverted?.[1] && inverted[2]) variants.add(foldText(`${inverted[2]} ${inverted[1]}`));
  variants.delete('');
  return [...variants];
}
