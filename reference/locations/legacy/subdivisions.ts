import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { iso31662 } from 'iso-3166';
import { CODE_NAME_OVERRIDES } from './code-overrides.js';
import { PROVIDER_NAME_ALIASES } from './provider-aliases.js';

/**
 * Subdivisions from two maintained npm packages (see README.md, "Where codes come from"):
 * - Unicode CLDR (cldr-core, cldr-subdivisions-full): which subdivisions exist now, how they
 *   nest, their CLDR ids and English names. CLDR ids are the ISO 3166-2 codes lower-cased
 *   without the hyphen (`usca` for US-CA); retired ids are listed as aliases and skipped, so the
 *   ISO code derived from an id is the current one.
 * - iso-3166 (ISO 3166-2 as published): the official, often local-language, names ("Hessen",
 *   "Chungcheongbuk-do", "District of Columbia") that the provider sometimes uses. These are
 *   current where CLDR's English names can lag (a code ISO reassigned keeps its old English name
 *   in CLDR), so they decide which region may carry a code (iso-agreement.ts).
 */
export interface Subdivision {
  /** ISO 3166-2, e.g. `US-CA`. */
  iso: string;
  /** CLDR subdivision id in the reference's upper-case form, e.g. `USCA`. */
  cldr: string;
  /** The part after the hyphen, e.g. `CA`: what provider region headers carry within a country. */
  short: string;
  countryCode: string;
  /** 1 for first-level subdivisions; 2 for units nested in one (Spanish provinces, Irish counties). */
  depth: 1 | 2;
  /** ISO code of the containing first-level subdivision when depth is 2. */
  parentIso?: string;
  /** Names to find candidates by: CLDR English name first (when there is one), the ISO 3166-2 name, reviewed aliases. */
  names: string[];
  /**
   * Names that say what the code means now, which a region must agree with to carry the code:
   * the ISO 3166-2 name and reviewed aliases (never CLDR's English name, which can be stale), or
   * only the reviewed override names (code-overrides.ts).
   */
  currentNames: string[];
}

export interface SubdivisionSource {
  /** Package versions, recorded with each registry build. */
  version: string;
  byCountry: Map<string, Subdivision[]>;
}

const require = createRequire(import.meta.url);
const CLDR_ID = /^[a-z]{2}[a-z0-9]{1,3}$/;

type Json = Record<string, unknown>;
const readJson = (path: string): Json => JSON.parse(readFileSync(path, 'utf8')) as Json;

function dig(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) current = (current as Json | undefined)?.[key];
  return current;
}

const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const packageVersion = (name: string) => String(readJson(join(packageDir(name), 'package.json')).version);

const isoFromCldr = (id: string) => `${id.slice(0, 2).toUpperCase()}-${id.slice(2).toUpperCase()}`;

/** Loads first-level subdivisions of every country CLDR lists, and the units nested in them. */
export function loadSubdivisions(): SubdivisionSource {
  const core = join(packageDir('cldr-core'), 'supplemental');
  const containment = dig(readJson(join(core, 'subdivisionContainment.json')), 'supplemental', 'subdivisionContainment') as Json;
  const aliases = (dig(readJson(join(core, 'aliases.json')), 'supplemental', 'metadata', 'alias', 'subdivisionAlias') ?? {}) as Json;
  const english = (dig(
    readJson(join(packageDir('cldr-subdivisions-full'), 'subdivisions', 'en', 'en.json')),
    'subdivisions', 'localeDisplayNames', 'subdivisions',
  ) ?? {}) as Record<string, string>;
  const isoNames = new Map(iso31662.map((entry) => [entry.code, entry.name]));

  const contained = (key: string) => ((dig(containment, key, '_contains') ?? []) as string[]).filter(
    (id) => CLDR_ID.test(id) && !(id in aliases),
  );
  const make = (id: string, country: string, depth: 1 | 2, parentIso?: string): Subdivision => {
    const iso = isoFromCldr(id);
    const override = CODE_NAME_OVERRIDES[iso]?.names;
    const current = override ?? [isoNames.get(iso), ...(PROVIDER_NAME_ALIASES[iso] ?? [])].filter((name): name is string => !!name);
    const names = override ?? [english[id], ...current].filter((name): name is string => !!name);
    return {
      iso, cldr: id.toUpperCase(), short: id.slice(2).toUpperCase(), countryCode: country, depth,
      ...(parentIso ? { parentIso } : {}), names: [...new Set(names)], currentNames: [...new Set(current)],
    };
  };

  const byCountry = new Map<string, Subdivision[]>();
  for (const country of Object.keys(containment)) {
    if (!/^[A-Z]{2}$/.test(country)) continue; // lower-case keys are first-level units holding others
    const list: Subdivision[] = [];
    for (const id of contained(country)) {
      const first = make(id, country, 1);
      list.push(first);
      for (const child of contained(id)) list.push(make(child, country, 2, first.iso));
    }
    byCountry.set(country, list);
  }
  return {
    version: ['cldr-core', 'cldr-subdivisions-full', 'iso-3166'].map((name) => `${name}@${packageVersion(name)}`).join(' '),
    byCountry,
  };
}
