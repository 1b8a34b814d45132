import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { seededRandom } from '../../platform/seeded-random.js';

/**
 * A deterministic, full-size synthetic geo-target catalog in the source's CSV format (first six
 * fields quoted, Status bare, sorted by Criteria ID as text), for load and speed tests. The mix of
 * target types follows a full release (~275k rows); it also holds what a real file can throw at
 * the loader: `Removal Planned` rows (and children below them), parents missing from the file,
 * deep chains, parent cycles (rings, a self-parent, records hanging into rings), accented names
 * and names with commas and quotes. Same seed, same bytes.
 */
export interface GeneratedRow {
  id: number;
  name: string;
  canonicalName: string;
  parentId: number | null;
  countryCode: string;
  targetType: string;
  active: boolean;
}

export interface GeneratedCatalog {
  rows: GeneratedRow[];
  countsByType: Record<string, number>;
  /** Country codes, largest country first. */
  countriesBySize: string[];
}

export interface GeneratorOptions {
  seed?: number;
  /** 1 = full size (~275k rows); smaller values scale every level down (for tests). */
  scale?: number;
}

const syllables = ('ka lo ma ri san ta ber lin ven to mon te sa la po dor ra vi el na go re ha mi bu ro de ne li '
  + 'an tor va fer qui zo ca ste ban gua cel mar wes ton ash ford ly ham bur gen dal ox tre vel nor pal os ir').split(' ');
const accented: Record<string, string> = { a: 'á', e: 'é', o: 'ö', u: 'ü', i: 'í', n: 'ñ', c: 'ç' };
const firstLevelTypes: [string, number][] = [
  ['State', 275], ['Province', 1500], ['Region', 1138], ['Department', 100], ['Prefecture', 47], ['Governorate', 27],
  ['Canton', 26], ['Autonomous Community', 19], ['Territory', 10], ['Union Territory', 8],
];
const secondLevelTypes: [string, number][] = [['County', 3706], ['District', 14000], ['Municipality', 12000], ['Borough', 200], ['Congressional District', 440]];
const placeTypes: [string, number][] = [['Airport', 3500], ['University', 4000], ['National Park', 500]];

export function generateGeoCatalog(options: GeneratorOptions = {}): GeneratedCatalog {
  const random = seededRandom(options.seed ?? 20260812);
  const scale = options.scale ?? 1;
  const count = (n: number) => Math.max(1, Math.round(n * scale));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
  const word = () => {
    let text = '';
    for (let n = 2 + Math.floor(random() * 2); n > 0; n--) text += pick(syllables);
    if (random() < 0.03) text = text.replace(/[aeouinc]/, (letter) => accented[letter] ?? letter);
    return capital(text);
  };
  const placeName = () => {
    const roll = random();
    if (roll < 0.7) return word();
    if (roll < 0.9) return `${word()} ${word()}`;
    if (roll < 0.97) return `${pick(['San', 'New', 'Port', 'Saint', 'Lake', 'Mount'])} ${word()}`;
    if (roll < 0.99) return `${word()}-${word()}`;
    return pick([`${word()}, ${word()}`, `${word()}'s "Old" Town`]);
  };

  const rows: GeneratedRow[] = [];
  const byId = new Map<number, GeneratedRow>();
  const add = (id: number, name: string, parent: GeneratedRow | null, countryCode: string, targetType: string) => {
    const canonicalName = parent ? `${name},${parent.canonicalName}` : name;
    const row: GeneratedRow = { id, name, canonicalName, parentId: parent?.id ?? null, countryCode, targetType, active: true };
    rows.push(row);
    byId.set(id, row);
    return row;
  };

  // Countries: unique two-letter codes; Zipf-like sizes so a few countries hold most places.
  const codes = new Set<string>();
  while (codes.size < 219) codes.add(String.fromCharCode(65 + Math.floor(random() * 26), 65 + Math.floor(random() * 26)));
  const countries = [...codes].map((code, i) => add(2001 + i, i === 0 ? 'Testland' : placeName(), null, code, 'Country'));
  const weights = countries.map((_, i) => 1 / (i + 1) ** 1.1);
  const totalWeight = weights.reduce((sum, w) => sum + w, 0);
  const cumulative = weights.map(((sum) => (w: number) => (sum += w / totalWeight))(0));
  const pickCountry = () => {
    const roll = random();
    const index = cumulative.findIndex((edge) => roll <= edge);
    return countries[index === -1 ? countries.length - 1 : index]!;
  };
  for (let i = 0; i < 27; i++) add(2300 + i, placeName(), null, String.fromCharCode(65 + (i % 26), 90 - (i % 26)), 'Region');

  let fiveDigit = 20001;
  let sevenDigit = 1000000;
  let nineBlock = 9000000;
  const under = new Map<GeneratedRow, GeneratedRow[]>();
  const childOf = (parent: GeneratedRow, child: GeneratedRow) => {
    const list = under.get(parent);
    if (list) list.push(child);
    else under.set(parent, [child]);
  };

  const firstLevel: GeneratedRow[] = [];
  for (const [type, n] of firstLevelTypes) {
    for (let i = 0; i < count(n); i++) {
      const country = pickCountry();
      const row = add(fiveDigit++, placeName(), country, country.countryCode, type);
      firstLevel.push(row);
      childOf(country, row);
    }
  }
  const firstLevelOf = (country: GeneratedRow) => under.get(country) ?? [];
  const pickFirstLevel = () => {
    const country = pickCountry();
    const options = firstLevelOf(country);
    return options.length > 0 ? pick(options) : country;
  };
  const secondLevel: GeneratedRow[] = [];
  for (const [type, n] of secondLevelTypes) {
    for (let i = 0; i < count(n); i++) {
      const parent = pickFirstLevel();
      secondLevel.push(add(nineBlock++, placeName(), parent, parent.countryCode, type));
    }
  }
  const cities: GeneratedRow[] = [];
  for (let i = 0; i < count(65473); i++) {
    const roll = random();
    const parent = roll < 0.45 ? pick(secondLevel) : roll < 0.95 ? pickFirstLevel() : pickCountry();
    cities.push(add(sevenDigit++, placeName(), parent, parent.countryCode, 'City'));
  }
  const neighborhoods: GeneratedRow[] = [];
  for (let i = 0; i < count(35000); i++) {
    const parent = pick(cities);
    neighborhoods.push(add(nineBlock++, placeName(), parent, parent.countryCode, 'Neighborhood'));
  }
  for (const [type, n] of placeTypes) {
    for (let i = 0; i < count(n); i++) {
      const parent = random() < 0.7 ? pick(cities) : pickFirstLevel();
      add(nineBlock++, `${placeName()} ${type === 'Airport' ? 'Airport' : type === 'University' ? 'University' : 'Park'}`, parent, parent.countryCode, type);
    }
  }
  for (let i = 0; i < count(132824); i++) {
    const parent = pickFirstLevel();
    const name = random() < 0.8 ? String(10000 + Math.floor(random() * 89999)) : `${String.fromCharCode(65 + Math.floor(random() * 26))}${Math.floor(random() * 10)}${String.fromCharCode(65 + Math.floor(random() * 26))}`;
    add(nineBlock++, name, parent, parent.countryCode, 'Postal Code');
  }

  // Deep chains: neighborhoods nested inside neighborhoods, up to 12 levels below a city.
  for (let chain = 0; chain < count(40); chain++) {
    let parent = pick(neighborhoods);
    for (let depth = 0; depth < 6 + Math.floor(random() * 6); depth++) {
      parent = add(nineBlock++, placeName(), parent, parent.countryCode, 'Neighborhood');
    }
  }
  // Removal Planned: ~1.5% of places below the country level; their children become unresolved.
  for (const row of rows) if (row.targetType !== 'Country' && random() < 0.015) row.active = false;
  // Parents missing from the file.
  let missing = 9990000;
  for (const row of rows) if (row.parentId !== null && random() < 0.003) row.parentId = missing++;
  // Rings of districts (2–4 long), one self-parent, and records hanging into the rings.
  for (let ring = 0; ring < count(12); ring++) {
    const members = Array.from({ length: 2 + (ring % 3) }, () => pick(secondLevel));
    if (new Set(members).size !== members.length) continue;
    members.forEach((member, i) => (member.parentId = members[(i + 1) % members.length]!.id));
    const hanger = pick(cities);
    hanger.parentId = members[0]!.id;
  }
  const selfParent = pick(secondLevel);
  selfParent.parentId = selfParent.id;

  const countsByType: Record<string, number> = {};
  for (const row of rows) countsByType[row.targetType] = (countsByType[row.targetType] ?? 0) + 1;
  const sizes = new Map<string, number>();
  for (const row of rows) sizes.set(row.countryCode, (sizes.get(row.countryCode) ?? 0) + 1);
  const countriesBySize = countries.map((c) => c.countryCode).sort((a, b) => sizes.get(b)! - sizes.get(a)! || a.localeCompare(b));
  rows.sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1));
  void byId;
  return { rows, countsByType, countriesBySize };
}

const quote = (value: string) => `"${value.replace(/"/g, '""')}"`;

/** One CSV line exactly like the source quotes it. */
export function toSourceLine(row: GeneratedRow): string {
  return [row.id, row.name, row.canonicalName, row.parentId ?? '', row.countryCode, row.targetType]
    .map((value) => quote(String(value)))
    .concat(row.active ? 'Active' : 'Removal Planned')
    .join(',');
}

export async function writeGeoCatalog(file: string, catalog: GeneratedCatalog): Promise<void> {
  const out = createWriteStream(file);
  let chunk = 'Criteria ID,Name,Canonical Name,Parent ID,Country Code,Target Type,Status\n';
  for (const row of catalog.rows) {
    chunk += `${toSourceLine(row)}\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}
