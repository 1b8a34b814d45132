import { allowedEdits, editDistance } from './edit-distance.js';
import { nameVariants, stripTypeWords } from './normalize.js';

/**
 * Whether a region's name agrees with the current name of an ISO 3166-2 code (README.md, "Which
 * codes a region may carry"). This is the guard on every code the registry assigns: CLDR's English
 * names find candidates, but some are stale (Morocco's pre-2015 regions under codes ISO has since
 * given to other regions) or swapped (Taiwan's Chiayi City and County), so a code is assigned only
 * when ISO's own name, or a reviewed name of the code, agrees with the region.
 *
 * ISO names are often local-language or transliterated ("Amurskaya oblast'", "Al Jīzah"), so the
 * comparison is lenient about form and strict about identity: every identifying word of the
 * shorter name must be a word of the longer one, its start (4+ letters), or a spelling of it
 * within a small edit distance.
 */

/** Arabic articles written as separate words in ISO's transliterations ("Al Qalyūbīyah"). */
const ARTICLES = new Set(['al', 'el', 'ash', 'as', 'ad', 'an', 'ar', 'at', 'az']);
/** Slavic adjective endings after -sk-/-ck- ("Amurskaya" ~ "Amur", "Tomskaya" ~ "Tomsk"). */
const ADJECTIVE_ENDING = /(?<=[a-z]{3}[sc]k)(aya|aja|iy|ij|yy|oye|aye|a|o|e|ie|i|y)$/;

/**
 * Whether a name says it is a city or a wider area. Type words are otherwise ignored, but a city
 * and the area around it often share a name ("Chiayi City" and "Chiayi County", "Kyiv city" and
 * "Kyivska oblast"), so a name saying one never agrees with a name saying the other.
 */
type Kind = 'city' | 'area' | undefined;
const AREA_WORDS = new Set([
  'county', 'province', 'region', 'state', 'oblast', 'krai', 'kray', 'kraj', 'prefecture', 'governorate',
  'department', 'district', 'voivodeship', 'zupanija', 'megye', 'maakond', 'fylke', 'lan',
]);
function kindOf(folded: string): Kind {
  const words = folded.split(' ');
  const city = words.includes('city');
  const area = words.some((word) => AREA_WORDS.has(word));
  return city === area ? undefined : city ? 'city' : 'area';
}

interface Key {
  text: string;
  kind: Kind;
}

/** Folded, stripped and local-form keys of one name. */
function agreementKeys(name: string, countryWords: ReadonlySet<string>): Key[] {
  const keys = new Map<string, Key>();
  for (const folded of nameVariants(name)) {
    const kind = kindOf(folded);
    const stripped = stripTypeWords(folded, countryWords);
    const local = stripped.split(' ').filter((word) => !ARTICLES.has(word)).map((word) => word.replace(ADJECTIVE_ENDING, '')).join(' ');
    for (const text of [folded, stripped, local]) if (text && !keys.has(text)) keys.set(text, { text, kind });
  }
  return [...keys.values()];
}

function wordsAgree(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.min(a.length, b.length) < 4) return false;
  return a.startsWith(b) || b.startsWith(a) || editDistance(a, b) <= allowedEdits(a, b);
}

/** Every word of the shorter key agrees with a distinct word of the longer one. */
function wordsFit(x: string, y: string): boolean {
  const [short, long] = x.split(' ').length <= y.split(' ').length ? [x, y] : [y, x];
  const free = long.split(' ');
  return short.split(' ').every((word) => {
    const at = free.findIndex((other) => wordsAgree(word, other));
    if (at < 0) return false;
    free.splice(at, 1);
    return true;
  });
}

/** Edit distance is measured per word: over a whole name it would let "North Carolina" be "South Carolina". */
function keysAgree(x: Key, y: Key): boolean {
  if (x.kind && y.kind && x.kind !== y.kind) return false;
  return x.text === y.text || x.text.replace(/ /g, '') === y.text.replace(/ /g, '') || wordsFit(x.text, y.text);
}

/**
 * Pure: true when any of the region's names agrees with any of the code's current names.
 * `countryWords` are the words of the country's own name, which identify no region.
 */
export function namesAgree(regionNames: readonly string[], codeNames: readonly string[], countryWords: ReadonlySet<string> = new Set()): boolean {
  const regionKeys = regionNames.flatMap((name) => agreementKeys(name, countryWords));
  const codeKeys = codeNames.flatMap((name) => agreementKeys(name, countryWords));
  return regionKeys.some((x) => codeKeys.some((y) => keysAgree(x, y)));
}
