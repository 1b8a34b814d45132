import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { searchLocations } from '../../reference/locations/full/search.js';
import { normalizeSearchText } from '../../reference/locations/full/search-text.js';
import { sourceRowOf, type SourceRow } from '../../reference/locations/geo-target-row.js';
import { createTestApp } from '../support/app.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

/**
 * Conformance of the three public location routes to the service reference
 * (shared/spec/service-reference.md, "Location object", the three location endpoints, "Errors",
 * "Limits", "Versioning") and to ARCHITECTURE "FULL chains, precisely" / "Choices for what the
 * reference does not show".
 *
 * The real excerpt is loaded through the real loader. Expected FULL chains are computed here from
 * the same file, independently of the loader, so the routes are checked against the rules rather
 * than against themselves. Every check runs over many ids and responses; failures are collected
 * and reported together so one run shows every offending id.
 */

// Thousands of requests: in-process rate limiting with a ceiling no test reaches, so the shared
// Redis counters another test file reads are never touched.
let t: Awaited<ReturnType<typeof createTestApp>>;

interface Envelope {
  code: string;
  message: string;
  data: Record<string, any>;
  extra: Record<string, any>;
}
interface Reply {
  status: number;
  body: Envelope;
  url: string;
}

let requests = 0;
async function get(url: string): Promise<Reply> {
  requests++;
  const response = await t.app.inject({ method: 'GET', url });
  return { status: response.statusCode, body: response.json() as Envelope, url };
}
const qs = (params: Record<string, string>) => new URLSearchParams(params).toString();

// ---------------------------------------------------------------------------------------------
// Independent model of the excerpt (ARCHITECTURE "FULL chains, precisely").
// ---------------------------------------------------------------------------------------------

type SourceRecord = SourceRow & { active: boolean };
interface ExpectedChain {
  parent: string | null;
  status: 'COMPLETE' | 'UNRESOLVED_SOURCE_PARENT';
  unresolved: string | null;
  /** Root-to-self ids over verified parents. */
  path: string[];
}

const records = new Map<string, SourceRecord>();
const activeIds: string[] = [];
const chains = new Map<string, ExpectedChain>();

function readExcerpt() {
  const rows = parse(readFileSync(GEO_EXCERPT_FILE), { from_line: 2, skip_empty_lines: true }) as string[][];
  for (const fields of rows) {
    const row = sourceRowOf(fields);
    const record: SourceRecord = { ...row, active: row.status === 'Active' };
    records.set(record.id, record);
    if (record.active) activeIds.push(record.id);
  }
  // "A record's source parent is verified when it exists in the file, is active, and does not
  // close a cycle. The chain ... is COMPLETE when it ends at a record with no source parent;
  // otherwise it is UNRESOLVED_SOURCE_PARENT, and unresolved_source_parent_location_id is the raw
  // parent id at which it stopped."
  for (const id of activeIds) {
    const path = [id];
    const seen = new Set([id]);
    let at = records.get(id)!;
    let unresolved: string | null = null;
    while (at.parentId !== null) {
      const parent = records.get(at.parentId);
      if (!parent || !parent.active || seen.has(parent.id)) {
        unresolved = at.parentId;
        break;
      }
      seen.add(parent.id);
      path.unshift(parent.id);
      at = parent;
    }
    chains.set(id, {
      parent: path.length > 1 ? path[path.length - 2]! : null,
      status: unresolved === null ? 'COMPLETE' : 'UNRESOLVED_SOURCE_PARENT',
      unresolved,
      path,
    });
  }
}

/** Case- and accent-insensitive form used to decide what a search must match. */
const fold = (text: string, { dropApostrophes = false } = {}) =>
  (dropApostrophes ? text.replace(/['’ʼ‘`´]/gu, '') : text)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

// ---------------------------------------------------------------------------------------------
// The reference's schemas, as small checkers that collect every problem they find.
// ---------------------------------------------------------------------------------------------

const ID = /^[0-9]+$/;
const COUNTRY = /^[A-Z]{2}$/;
const LEVELS = ['COUNTRY', 'REGION', 'CITY'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type Problems = string[];
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Exact key set: every required key present, nothing outside required + optional. */
function keys(problems: Problems, where: string, value: Record<string, unknown>, required: string[], optional: string[] = []) {
  for (const key of required) if (!(key in value)) problems.push(`${where}: missing ${key}`);
  for (const key of Object.keys(value)) {
    if (!required.includes(key) && !optional.includes(key)) problems.push(`${where}: unexpected ${key}`);
  }
}
function str(problems: Problems, where: string, value: unknown, pattern?: RegExp) {
  if (typeof value !== 'string') problems.push(`${where}: ${JSON.stringify(value)} is not a string`);
  else if (pattern && !pattern.test(value)) problems.push(`${where}: ${JSON.stringify(value)} does not match ${pattern}`);
}
function oneOf(problems: Problems, where: string, value: unknown, allowed: string[]) {
  if (typeof value !== 'string' || !allowed.includes(value)) problems.push(`${where}: ${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
}
function positiveInteger(problems: Problems, where: string, value: unknown) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) problems.push(`${where}: ${JSON.stringify(value)} is not an integer >= 1`);
}
/** "Optional fields are omitted when absent, not returned as null": nulls only where allowed. */
function noNulls(problems: Problems, where: string, value: unknown, nullable: readonly string[] = []) {
  if (Array.isArray(value)) value.forEach((item, i) => noNulls(problems, `${where}[${i}]`, item));
  else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (item === null && !nullable.includes(key)) problems.push(`${where}.${key}: null`);
      else if (key !== 'path') noNulls(problems, `${where}.${key}`, item);
    }
  }
}

const FULL_NODE_KEYS = ['location_id', 'name', 'canonical_name', 'country_code', 'target_type', 'hierarchy_precision'];
function checkFullNode(problems: Problems, where: string, node: unknown) {
  if (!isObject(node)) return void problems.push(`${where}: not an object`);
  keys(problems, where, node, FULL_NODE_KEYS, ['legacy_level']);
  str(problems, `${where}.location_id`, node.location_id, ID);
  str(problems, `${where}.name`, node.name);
  str(problems, `${where}.canonical_name`, node.canonical_name);
  str(problems, `${where}.country_code`, node.country_code, COUNTRY);
  str(problems, `${where}.target_type`, node.target_type);
  positiveInteger(problems, `${where}.hierarchy_precision`, node.hierarchy_precision);
  if ('legacy_level' in node) oneOf(problems, `${where}.legacy_level`, node.legacy_level, LEVELS);
  noNulls(problems, where, node);
}

const FULL_LOCATION_KEYS = [
  'location_id', 'name', 'canonical_name', 'country_code', 'target_type', 'source_parent_location_id', 'parent_location_id',
  'path', 'hierarchy_precision', 'chain_status',
];
/** FULL Location object: shape, and the chain rules that hold inside one object. */
function checkFullLocation(problems: Problems, where: string, location: unknown) {
  if (!isObject(location)) return void problems.push(`${where}: not an object`);
  // "`level` | LEGACY only | ...; FULL never returns it"; external_codes is LEGACY only.
  keys(problems, where, location, FULL_LOCATION_KEYS, ['legacy_level', 'unresolved_source_parent_location_id']);
  str(problems, `${where}.location_id`, location.location_id, ID);
  str(problems, `${where}.name`, location.name);
  str(problems, `${where}.canonical_name`, location.canonical_name);
  str(problems, `${where}.country_code`, location.country_code, COUNTRY);
  str(problems, `${where}.target_type`, location.target_type);
  for (const field of ['source_parent_location_id', 'parent_location_id']) {
    if (location[field] !== null) str(problems, `${where}.${field}`, location[field], ID);
  }
  positiveInteger(problems, `${where}.hierarchy_precision`, location.hierarchy_precision);
  if ('legacy_level' in location) oneOf(problems, `${where}.legacy_level`, location.legacy_level, LEVELS);
  oneOf(problems, `${where}.chain_status`, location.chain_status, ['COMPLETE', 'UNRESOLVED_SOURCE_PARENT']);
  // "required when chain_status is UNRESOLVED_SOURCE_PARENT"; absent otherwise (never null).
  if (location.chain_status === 'UNRESOLVED_SOURCE_PARENT') {
    str(problems, `${where}.unresolved_source_parent_location_id`, location.unresolved_source_parent_location_id, ID);
  } else if ('unresolved_source_parent_location_id' in location) {
    problems.push(`${where}: unresolved_source_parent_location_id on a COMPLETE chain`);
  }
  noNulls(problems, where, location, ['source_parent_location_id', 'parent_location_id']);
  const path = location.path;
  if (!Array.isArray(path) || path.length === 0) return void problems.push(`${where}.path: not a non-empty array`);
  path.forEach((node, i) => {
    checkFullNode(problems, `${where}.path[${i}]`, node);
    // "hierarchy_precision: one-based verified depth"; each path node carries its own.
    if (isObject(node) && node.hierarchy_precision !== i + 1) problems.push(`${where}.path[${i}].hierarchy_precision is ${node.hierarchy_precision}, expected ${i + 1}`);
  });
  if (location.hierarchy_precision !== path.length) problems.push(`${where}.hierarchy_precision ${location.hierarchy_precision} != path length ${path.length}`);
  const self = path.at(-1) as Record<string, unknown>;
  for (const field of [...FULL_NODE_KEYS, 'legacy_level']) {
    if (self[field] !== location[field]) problems.push(`${where}.path[-1].${field} ${JSON.stringify(self[field])} != location's ${JSON.stringify(location[field])}`);
  }
  const parentNode = path.at(-2) as Record<string, unknown> | undefined;
  if ((parentNode?.location_id ?? null) !== location.parent_location_id) problems.push(`${where}.parent_location_id is not the path's previous node`);
  const unresolved = location.unresolved_source_parent_location_id;
  if (unresolved !== undefined && path.some((node) => isObject(node) && node.location_id === unresolved)) {
    problems.push(`${where}: unresolved ${unresolved} appears in path`);
  }
}

const LEGACY_LOCATION_KEYS = ['location_id', 'name', 'canonical_name', 'country_code', 'target_type', 'level', 'parent_location_id', 'path'];
function checkLegacyLocation(problems: Problems, where: string, location: unknown) {
  if (!isObject(location)) return void problems.push(`${where}: not an object`);
  // LEGACY never returns FULL-only fields (source_parent_location_id, hierarchy_precision, legacy_level, chain_status, ...).
  keys(problems, where, location, LEGACY_LOCATION_KEYS, ['external_codes']);
  str(problems, `${where}.location_id`, location.location_id, ID);
  str(problems, `${where}.name`, location.name);
  str(problems, `${where}.canonical_name`, location.canonical_name);
  str(problems, `${where}.country_code`, location.country_code, COUNTRY);
  str(problems, `${where}.target_type`, location.target_type);
  oneOf(problems, `${where}.level`, location.level, LEVELS);
  if (location.parent_location_id !== null) str(problems, `${where}.parent_location_id`, location.parent_location_id, ID);
  noNulls(problems, where, location, ['parent_location_id']);
  if ('external_codes' in location) {
    const codes = location.external_codes;
    if (!isObject(codes)) problems.push(`${where}.external_codes: not an object`);
    else {
      keys(problems, `${where}.external_codes`, codes, [], ['iso_3166_2', 'cldr_subdivision', 'provider_short']);
      if ('iso_3166_2' in codes) str(problems, `${where}.external_codes.iso_3166_2`, codes.iso_3166_2, /^[A-Z]{2}-[A-Z0-9]{1,3}$/);
      if ('cldr_subdivision' in codes) str(problems, `${where}.external_codes.cldr_subdivision`, codes.cldr_subdivision, /^[A-Z]{2}[A-Z0-9]{1,3}$/);
      if ('provider_short' in codes) str(problems, `${where}.external_codes.provider_short`, codes.provider_short, /^\S+$/);
    }
  }
  const path = location.path;
  if (!Array.isArray(path) || path.length === 0) return void problems.push(`${where}.path: not a non-empty array`);
  path.forEach((node, i) => {
    if (!isObject(node)) return void problems.push(`${where}.path[${i}]: not an object`);
    // LEGACY path nodes: location_id, name, level only.
    keys(problems, `${where}.path[${i}]`, node, ['location_id', 'name', 'level']);
    str(problems, `${where}.path[${i}].location_id`, node.location_id, ID);
    str(problems, `${where}.path[${i}].name`, node.name);
    oneOf(problems, `${where}.path[${i}].level`, node.level, LEVELS);
  });
  const self = path.at(-1) as Record<string, unknown>;
  for (const field of ['location_id', 'name', 'level']) {
    if (self[field] !== location[field]) problems.push(`${where}.path[-1].${field} differs from the location's`);
  }
  const parentNode = path.at(-2) as Record<string, unknown> | undefined;
  if ((parentNode?.location_id ?? null) !== location.parent_location_id) problems.push(`${where}.parent_location_id is not the path's previous node`);
  // Root-to-self over three levels: each node strictly deeper than the one before it.
  const depths = path.map((node) => LEVELS.indexOf((node as { level: string }).level));
  if (depths.some((depth, i) => i > 0 && depth <= depths[i - 1]!)) problems.push(`${where}.path levels ${JSON.stringify(depths)} are not root-to-self`);
}

/** The envelope of every response: `{code, message, data, extra}` and nothing else. */
function checkEnvelope(problems: Problems, reply: Reply) {
  const where = `GET ${reply.url} (${reply.status})`;
  const { body } = reply;
  if (!isObject(body)) return void problems.push(`${where}: body is not an object`);
  keys(problems, where, body, ['code', 'message', 'data', 'extra']);
  if (!isObject(body.data) || !isObject(body.extra)) problems.push(`${where}: data and extra must be objects`);
  if (reply.status === 200) {
    if (body.code !== 'SUCCESS' || body.message !== '') problems.push(`${where}: success must be code SUCCESS and message ""`);
  } else {
    if (body.code === 'SUCCESS' || typeof body.code !== 'string' || typeof body.message !== 'string' || body.message === '') {
      problems.push(`${where}: failure needs an error code and a readable message`);
    }
    // "data: exactly an empty object on failure".
    if (!isObject(body.data) || Object.keys(body.data).length !== 0) problems.push(`${where}: failure data is not {}`);
  }
}

function checkCatalogFields(problems: Problems, reply: Reply, catalog: 'FULL' | 'LEGACY', payload: string[]) {
  const where = `GET ${reply.url}`;
  const data = reply.body.data;
  if (catalog === 'FULL') {
    keys(problems, `${where} data`, data, ['catalog', 'catalog_version', 'source_file_date', ...payload], ['next_cursor']);
    if (data.catalog !== 'FULL' || data.catalog_version !== 'v1') problems.push(`${where}: catalog/catalog_version are ${data.catalog}/${data.catalog_version}`);
  } else {
    // "catalog (always FULL; absent in LEGACY), catalog_version (FULL only), registry_version (LEGACY only)".
    keys(problems, `${where} data`, data, ['registry_version', 'source_file_date', ...payload]);
    if (data.registry_version !== 'v1') problems.push(`${where}: registry_version is ${data.registry_version}`);
  }
  // "source_file_date (date string; both), pinned source file date".
  str(problems, `${where} data.source_file_date`, data.source_file_date, DATE);
  if (data.source_file_date !== '2025-07-15') problems.push(`${where}: source_file_date ${data.source_file_date} is not the loaded file's date`);
}

/** The one `extra.warnings` text of a given `locale`, in both catalogs. */
const LOCALE_WARNING = 'locale is reserved for future localized names; results use registry names';

const expectNoProblems = (problems: Problems) => expect(problems.slice(0, 40), `${problems.length} problems`).toEqual([]);

// ---------------------------------------------------------------------------------------------
// Shared state: every location as each catalog serves it by lookup.
// ---------------------------------------------------------------------------------------------

const fullById = new Map<string, Record<string, any>>();
const legacyById = new Map<string, Record<string, any>>();
const fullLookups = new Map<string, Reply>();
const legacyLookups = new Map<string, Reply>();
let releaseId: number;

beforeAll(async () => {
  readExcerpt();
  t = await createTestApp({ env: { REDIS_URL: '', LOCATION_RATE_LIMIT: '1000000' } });
  ({ releaseId } = await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE }));
  for (const id of activeIds) {
    const full = await get(`/v1/locations/${id}?catalog=FULL`);
    fullLookups.set(id, full);
    if (full.status === 200 && full.body?.data?.location) fullById.set(id, full.body.data.location);
    const legacy = await get(`/v1/locations/${id}`);
    legacyLookups.set(id, legacy);
    if (legacy.status === 200 && legacy.body?.data?.location) legacyById.set(id, legacy.body.data.location);
  }
}, 300_000);

afterAll(async () => {
  await t?.close();
});

// ---------------------------------------------------------------------------------------------

describe('the excerpt model', () => {
  it('has active records of many target types and both complete and unresolved chains', () => {
    // Guards the meaning of the checks below: they must run over a varied catalog.
    expect(activeIds.length).toBeGreaterThan(3000);
    expect(new Set(activeIds.map((id) => records.get(id)!.targetType)).size).toBeGreaterThanOrEqual(15);
    const statuses = [...chains.values()].map((chain) => chain.status);
    expect(statuses).toContain('COMPLETE');
    expect(statuses).toContain('UNRESOLVED_SOURCE_PARENT');
    expect(legacyById.size).toBeGreaterThan(1000);
  });
});

describe('GET /v1/locations/{location_id}?catalog=FULL, every active id', () => {
  it('answers 200 with the catalog fields, the location, its path and location_ids', () => {
    const problems: Problems = [];
    for (const [id, reply] of fullLookups) {
      checkEnvelope(problems, reply);
      // "FULL accepts any active full-catalog id".
      if (reply.status !== 200) {
        problems.push(`GET ${reply.url}: ${reply.status} for an active id`);
        continue;
      }
      checkCatalogFields(problems, reply, 'FULL', ['location', 'path', 'location_ids']);
      const { location, path, location_ids: locationIds } = reply.body.data;
      checkFullLocation(problems, `${id}.location`, location);
      // "path[] (same as location.path)"; "location_ids is the self-to-root chain of ids".
      if (JSON.stringify(path) !== JSON.stringify(location.path)) problems.push(`${id}: data.path differs from location.path`);
      const pathIds = (location.path as { location_id: string }[]).map((node) => node.location_id);
      if (JSON.stringify(locationIds) !== JSON.stringify([...pathIds].reverse())) problems.push(`${id}: location_ids is not path reversed`);
      if (!Array.isArray(locationIds) || locationIds.some((item: unknown) => typeof item !== 'string' || !ID.test(item))) {
        problems.push(`${id}: location_ids items must be numeric strings`);
      }
      if (locationIds?.[0] !== id || location.location_id !== id) problems.push(`${id}: answered for another id`);
      if (location.unresolved_source_parent_location_id !== undefined && locationIds.includes(location.unresolved_source_parent_location_id)) {
        problems.push(`${id}: unresolved parent in location_ids`);
      }
      if (Object.keys(reply.body.extra).length !== 0) problems.push(`${id}: extra ${JSON.stringify(reply.body.extra)} without locale`);
    }
    expect(fullLookups.size).toBe(activeIds.length);
    expectNoProblems(problems);
  });

  it('keeps the raw source values and follows exactly the verified chain of the source file', () => {
    const problems: Problems = [];
    for (const id of activeIds) {
      const location = fullById.get(id);
      if (!location) continue; // reported by the test above
      const record = records.get(id)!;
      const chain = chains.get(id)!;
      // "target_type: exact raw source type; never normalized in FULL"; name and canonical_name are the provider's.
      const raw = { name: record.name, canonical_name: record.canonicalName, country_code: record.countryCode, target_type: record.targetType };
      for (const [field, value] of Object.entries(raw)) if (location[field] !== value) problems.push(`${id}.${field}: ${location[field]} != source ${value}`);
      // "source_parent_location_id: raw parent id from the source" (null when none).
      if (location.source_parent_location_id !== record.parentId) problems.push(`${id}.source_parent_location_id ${location.source_parent_location_id} != ${record.parentId}`);
      // "parent_location_id: only a verified ACTIVE source-parent edge, null when no parent relation can be verified".
      if (location.parent_location_id !== chain.parent) problems.push(`${id}.parent_location_id ${location.parent_location_id} != verified ${chain.parent}`);
      if (location.chain_status !== chain.status) problems.push(`${id}.chain_status ${location.chain_status} != ${chain.status}`);
      if ((location.unresolved_source_parent_location_id ?? null) !== chain.unresolved) {
        problems.push(`${id}.unresolved_source_parent_location_id ${location.unresolved_source_parent_location_id} != ${chain.unresolved}`);
      }
      // "path: root-to-self; FULL contains only verified relations and never invents segments".
      const pathIds = (location.path as { location_id: string }[]).map((node) => node.location_id);
      if (JSON.stringify(pathIds) !== JSON.stringify(chain.path)) problems.push(`${id}.path ${pathIds} != verified chain ${chain.path}`);
      // Every path node is that ancestor's own data.
      for (const node of location.path as Record<string, unknown>[]) {
        const ancestor = records.get(node.location_id as string);
        if (!ancestor || node.name !== ancestor.name || node.canonical_name !== ancestor.canonicalName || node.country_code !== ancestor.countryCode || node.target_type !== ancestor.targetType) {
          problems.push(`${id}.path node ${node.location_id} does not carry that location's source values`);
        }
      }
    }
    expectNoProblems(problems);
  });

  it('labels legacy_level exactly where the id is a LEGACY registry entry, with that entry\'s level', () => {
    // "legacy_level: COUNTRY, REGION, CITY label, when representable; does not relabel the raw type".
    const problems: Problems = [];
    for (const [id, location] of fullById) {
      const nodes = [location, ...(location.path as Record<string, unknown>[])];
      for (const node of nodes) {
        const entry = legacyById.get(node.location_id as string);
        if ((node.legacy_level ?? null) !== (entry?.level ?? null)) {
          problems.push(`${id}: node ${node.location_id} legacy_level ${node.legacy_level} but LEGACY level ${entry?.level}`);
        }
      }
    }
    expectNoProblems(problems);
  });
});

describe('GET /v1/locations/resolve?catalog=FULL, every active id', () => {
  it('returns what lookup returns, plus candidates: [] (same catalog fields, location, path, location_ids)', async () => {
    const problems: Problems = [];
    for (const id of activeIds) {
      const reply = await get(`/v1/locations/resolve?catalog=FULL&location_id=${id}`);
      checkEnvelope(problems, reply);
      if (reply.status !== 200) {
        problems.push(`GET ${reply.url}: ${reply.status}`);
        continue;
      }
      checkCatalogFields(problems, reply, 'FULL', ['location', 'path', 'location_ids', 'candidates']);
      // "location (the direct id in FULL) ... candidates[] (... empty array in FULL)".
      const { candidates, ...rest } = reply.body.data;
      if (!Array.isArray(candidates) || candidates.length !== 0) problems.push(`${id}: candidates ${JSON.stringify(candidates)}`);
      if (JSON.stringify(rest) !== JSON.stringify(fullLookups.get(id)!.body.data)) problems.push(`${id}: resolve data differs from lookup data`);
    }
    expectNoProblems(problems);
  });
});

describe('GET /v1/locations/{location_id} (LEGACY), every active FULL id', () => {
  it('answers 200 for registry entries and 404 NOT_FOUND for the rest, always in the envelope', () => {
    const problems: Problems = [];
    for (const [id, reply] of legacyLookups) {
      checkEnvelope(problems, reply);
      if (reply.status === 404) {
        if (reply.body.code !== 'NOT_FOUND') problems.push(`${id}: 404 with code ${reply.body.code}`);
        continue;
      }
      if (reply.status !== 200) {
        problems.push(`GET ${reply.url}: ${reply.status}`);
        continue;
      }
      checkCatalogFields(problems, reply, 'LEGACY', ['location', 'path', 'location_ids']);
      const { location, path, location_ids: locationIds } = reply.body.data;
      checkLegacyLocation(problems, `${id}.location`, location);
      if (JSON.stringify(path) !== JSON.stringify(location.path)) problems.push(`${id}: data.path differs from location.path`);
      const pathIds = (location.path as { location_id: string }[]).map((node) => node.location_id);
      if (JSON.stringify(locationIds) !== JSON.stringify([...pathIds].reverse())) problems.push(`${id}: location_ids is not path reversed`);
      if (location.location_id !== id) problems.push(`${id}: answered for another id`);
    }
    expectNoProblems(problems);
  });

  it('builds each path from registry entries: every node is that entry, the root a COUNTRY without parent', () => {
    const problems: Problems = [];
    for (const [id, location] of legacyById) {
      const path = location.path as { location_id: string; name: string; level: string }[];
      for (const node of path) {
        const entry = legacyById.get(node.location_id);
        if (!entry || entry.name !== node.name || entry.level !== node.level) problems.push(`${id}: path node ${node.location_id} is not that registry entry`);
      }
      const root = legacyById.get(path[0]!.location_id);
      if (root && (root.level !== 'COUNTRY' || root.parent_location_id !== null)) problems.push(`${id}: root ${root.location_id} is not a COUNTRY without parent`);
      // The same id in both catalogs names the same source record: "target_type: exact raw source type".
      const record = records.get(id)!;
      const raw = { name: record.name, canonical_name: record.canonicalName, country_code: record.countryCode, target_type: record.targetType };
      for (const [field, value] of Object.entries(raw)) if (location[field] !== value) problems.push(`${id}.${field}: ${location[field]} != source ${value}`);
    }
    expect(new Set([...legacyById.values()].map((location) => location.level))).toEqual(new Set(LEVELS));
    expectNoProblems(problems);
  });
});

describe('GET /v1/locations/resolve (LEGACY)', () => {
  const legacyData = ['location', 'path', 'location_ids', 'candidates'];

  function checkResolved(problems: Problems, reply: Reply, expectedId: string) {
    checkEnvelope(problems, reply);
    if (reply.status !== 200) return void problems.push(`GET ${reply.url}: ${reply.status} ${reply.body.message}`);
    checkCatalogFields(problems, reply, 'LEGACY', legacyData);
    const { location, path, location_ids: locationIds, candidates } = reply.body.data;
    checkLegacyLocation(problems, `${reply.url} location`, location);
    if (location?.location_id !== expectedId) problems.push(`GET ${reply.url}: resolved ${location?.location_id}, expected ${expectedId}`);
    if (JSON.stringify(location) !== JSON.stringify(legacyById.get(expectedId))) problems.push(`GET ${reply.url}: location differs from lookup`);
    if (JSON.stringify(path) !== JSON.stringify(location?.path)) problems.push(`GET ${reply.url}: path differs from location.path`);
    const ids = (location?.path ?? []).map((node: { location_id: string }) => node.location_id).reverse();
    if (JSON.stringify(locationIds) !== JSON.stringify(ids)) problems.push(`GET ${reply.url}: location_ids is not self-to-root`);
    if (!Array.isArray(candidates)) problems.push(`GET ${reply.url}: candidates is not an array`);
    else candidates.forEach((candidate, i) => checkLegacyLocation(problems, `${reply.url} candidates[${i}]`, candidate));
  }

  it('normalizes every external code of every region to that region, and every country code to its country', async () => {
    const problems: Problems = [];
    let codes = 0;
    for (const [id, location] of legacyById) {
      const external = location.external_codes as Record<string, string> | undefined;
      if (location.level === 'COUNTRY') {
        checkResolved(problems, await get(`/v1/locations/resolve?${qs({ country: location.country_code })}`), id);
      }
      if (!external) continue;
      codes++;
      if (external.iso_3166_2) checkResolved(problems, await get(`/v1/locations/resolve?${qs({ subdivision_code: external.iso_3166_2, subdivision_code_type: 'ISO_3166_2' })}`), id);
      if (external.cldr_subdivision) checkResolved(problems, await get(`/v1/locations/resolve?${qs({ subdivision_code: external.cldr_subdivision, subdivision_code_type: 'CLDR' })}`), id);
      if (external.provider_short) {
        checkResolved(problems, await get(`/v1/locations/resolve?${qs({ subdivision_code: external.provider_short, subdivision_code_type: 'PROVIDER_SHORT', country: location.country_code })}`), id);
      }
    }
    expect(codes).toBeGreaterThan(1000);
    expectNoProblems(problems);
  });

  it('resolves cities under their country: best first, within limit (default 10), never a null success', async () => {
    const cities = [...legacyById.values()].filter((location) => location.level === 'CITY');
    const problems: Problems = [];
    for (const city of cities) {
      const reply = await get(`/v1/locations/resolve?${qs({ country: city.country_code, city: city.name })}`);
      checkEnvelope(problems, reply);
      if (reply.status !== 200) {
        problems.push(`GET ${reply.url}: ${reply.status}`);
        continue;
      }
      checkCatalogFields(problems, reply, 'LEGACY', legacyData);
      const { location, candidates } = reply.body.data;
      // "location (best normalized location in LEGACY)": the first candidate, and a candidate is a match.
      if (JSON.stringify(location) !== JSON.stringify(candidates[0])) problems.push(`GET ${reply.url}: location is not the first candidate`);
      if (candidates.length > 10) problems.push(`GET ${reply.url}: ${candidates.length} candidates over the default limit 10`);
      // The city itself is among them unless the page is full of other matches.
      if (candidates.length < 10 && !candidates.some((candidate: { location_id: string }) => candidate.location_id === city.location_id)) {
        problems.push(`GET ${reply.url}: ${city.location_id} missing from candidates`);
      }
      for (const candidate of candidates) {
        if (candidate.level !== 'CITY' || candidate.country_code !== city.country_code) problems.push(`GET ${reply.url}: candidate ${candidate.location_id} is not a city of ${city.country_code}`);
      }
    }
    expect(cities.length).toBeGreaterThan(300);
    expectNoProblems(problems);
  });

  it('honours limit 1..50 and defaults to 10 candidates', async () => {
    // A country with more than 50 cities whose names contain "a" makes the bounds observable.
    const perCountry = new Map<string, number>();
    for (const location of legacyById.values()) {
      if (location.level === 'CITY' && fold(location.name).includes('a')) perCountry.set(location.country_code, (perCountry.get(location.country_code) ?? 0) + 1);
    }
    const [country, count] = [...perCountry].sort((a, b) => b[1] - a[1])[0]!;
    expect(count).toBeGreaterThan(10);
    const sizes: Record<string, number> = {};
    for (const limit of ['', '1', '10', '50']) {
      const reply = await get(`/v1/locations/resolve?${qs({ country, city: 'a', ...(limit && { limit }) })}`);
      expect(reply.status).toBe(200);
      sizes[limit || 'default'] = reply.body.data.candidates.length;
    }
    expect(sizes).toEqual({ default: 10, 1: 1, 10: 10, 50: Math.min(50, count) });
  });

  it('answers an error envelope, never a null success, for any combination of its parameters', async () => {
    // "LEGACY unsupported input returns an error envelope, never a null success."
    const countries = [...new Set([...legacyById.values()].map((location) => location.country_code as string))];
    const codes = [...legacyById.values()].flatMap((location) => Object.values((location.external_codes ?? {}) as Record<string, string>));
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            country: fc.oneof(fc.constantFrom(...countries), fc.constantFrom('ZZ', 'us', 'U1', '')),
            subdivision_code: fc.oneof(fc.constantFrom(...codes), fc.string({ maxLength: 6 })),
            subdivision_code_type: fc.constantFrom('AUTO', 'ISO_3166_2', 'CLDR', 'PROVIDER_SHORT', 'iso'),
            city: fc.oneof(fc.constantFrom('a', 'san', 'york', 'atlantis'), fc.string({ maxLength: 5 })),
            limit: fc.constantFrom('1', '10', '50', '0', '51'),
          },
          { requiredKeys: [] },
        ),
        async (params) => {
          // Per run, so a shrunk counterexample reports only its own problems.
          const problems: Problems = [];
          const reply = await get(`/v1/locations/resolve?${qs(params)}`);
          checkEnvelope(problems, reply);
          if (![200, 400, 404].includes(reply.status)) problems.push(`GET ${reply.url}: ${reply.status}`);
          if (reply.status === 200) {
            const { location, location_ids: ids, candidates } = reply.body.data;
            if (!isObject(location) || !Array.isArray(ids) || ids.length === 0 || !Array.isArray(candidates) || candidates.length === 0) {
              problems.push(`GET ${reply.url}: success without a location`);
            }
          }
          expectNoProblems(problems);
        },
      ),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Search
// ---------------------------------------------------------------------------------------------

/** Match tier per the ranking rule: exact id or code, then name prefix, word prefix, substring. */
const TIER = { EXACT: 0, NAME_PREFIX: 1, WORD_PREFIX: 2, SUBSTRING: 3, COUNTRY_CODE: 4 } as const;

function fullTier(record: SourceRecord, q: string): number | undefined {
  const fq = fold(q);
  if (record.id === q.trim()) return TIER.EXACT;
  // "Exact id or code first": the top-level record of the code (a country or a top-level territory).
  if (record.parentId === null && record.countryCode === fq.toUpperCase()) return TIER.EXACT;
  const name = fold(record.name);
  const canonical = fold(record.canonicalName);
  if (name.startsWith(fq)) return TIER.NAME_PREFIX;
  if (` ${name} `.includes(` ${fq}`) || ` ${canonical} `.includes(` ${fq}`)) return TIER.WORD_PREFIX;
  if (name.includes(fq) || canonical.includes(fq)) return TIER.SUBSTRING;
  return undefined;
}
/** "FULL matches name, canonical_name, location_id and country code." */
function fullMatches(record: SourceRecord, q: string): boolean {
  return fullTier(record, q) !== undefined || record.countryCode === fold(q).toUpperCase();
}

interface FullSearch {
  q?: string;
  country?: string;
  target_types?: string[];
  parent_location_id?: string;
}

/** Every page of one FULL search, checked page by page; returns the ids in served order. */
async function pageThrough(problems: Problems, search: FullSearch, limit: number): Promise<string[]> {
  // No search can serve more than the whole catalog: one that never ends is reported, not waited for.
  const maxPages = Math.ceil(activeIds.length / limit) + 1;
  const params: Record<string, string> = { catalog: 'FULL', limit: String(limit) };
  if (search.q !== undefined) params.q = search.q;
  if (search.country !== undefined) params.country = search.country;
  if (search.target_types !== undefined) params.target_types = search.target_types.join(',');
  if (search.parent_location_id !== undefined) params.parent_location_id = search.parent_location_id;
  const served: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const reply = await get(`/v1/locations/search?${qs({ ...params, ...(cursor && { cursor }) })}`);
    checkEnvelope(problems, reply);
    if (reply.status !== 200) {
      problems.push(`GET ${reply.url}: ${reply.status} ${reply.body.message}`);
      return served;
    }
    checkCatalogFields(problems, reply, 'FULL', ['locations']);
    const locations = reply.body.data.locations as Record<string, any>[];
    if (locations.length > limit) problems.push(`GET ${reply.url}: ${locations.length} locations over limit ${limit}`);
    locations.forEach((location, i) => {
      checkFullLocation(problems, `${reply.url} locations[${i}]`, location);
      // A location is the same object whichever route returns it.
      if (JSON.stringify(location) !== JSON.stringify(fullById.get(location.location_id))) problems.push(`GET ${reply.url}: ${location.location_id} differs from its lookup`);
    });
    served.push(...locations.map((location) => location.location_id as string));
    // "next_cursor when another page exists (absent on the last page)".
    cursor = reply.body.data.next_cursor;
    if (cursor === undefined) return served;
    if (typeof cursor !== 'string' || cursor === '') problems.push(`GET ${reply.url}: next_cursor ${JSON.stringify(cursor)}`);
    if (locations.length !== limit) problems.push(`GET ${reply.url}: a page with next_cursor holds ${locations.length} of ${limit}`);
  }
  problems.push(`search ${JSON.stringify(search)}: more than ${maxPages} pages`);
  return served;
}

function expectedFull(search: FullSearch): Set<string> {
  return new Set(
    activeIds.filter((id) => {
      const record = records.get(id)!;
      if (search.country !== undefined && record.countryCode !== search.country) return false;
      if (search.target_types !== undefined && !search.target_types.includes(record.targetType)) return false;
      if (search.parent_location_id !== undefined && chains.get(id)!.parent !== search.parent_location_id) return false;
      return search.q === undefined || fullMatches(record, search.q);
    }),
  );
}

function checkFullRanking(problems: Problems, search: FullSearch, served: string[]) {
  if (search.q === undefined) return;
  const where = `search ${JSON.stringify(search)}`;
  const tiers = served.map((id) => fullTier(records.get(id)!, search.q!));
  // Country-code-only matches have no ranking rule of their own; the ranked tiers must not decrease.
  const ranked = tiers.filter((tier): tier is number => tier !== undefined);
  const drop = ranked.findIndex((tier, i) => i > 0 && tier < ranked[i - 1]!);
  if (drop >= 0) problems.push(`${where}: tier ${ranked[drop]} after ${ranked[drop - 1]} (${served.join(',')})`);
  const firstUnranked = tiers.indexOf(undefined);
  const lastExact = tiers.lastIndexOf(TIER.EXACT);
  if (firstUnranked >= 0 && lastExact > firstUnranked) problems.push(`${where}: an exact match after a code-only match`);
}

const sample = <T>(items: readonly T[]) => fc.constantFrom(...items);
const TARGET_TYPES = () => [...new Set(activeIds.map((id) => records.get(id)!.targetType))];

/** A piece of a real name: what users type. */
const nameFragment = () =>
  fc
    .tuple(sample(activeIds), fc.boolean(), fc.nat(), fc.integer({ min: 2, max: 12 }))
    .map(([id, canonical, start, length]) => {
      const record = records.get(id)!;
      const text = canonical ? record.canonicalName : record.name;
      const from = start % text.length;
      return text.slice(from, from + length);
    })
    .filter((q) => /[\p{L}\p{N}]/u.test(q));

describe('GET /v1/locations/search?catalog=FULL', () => {
  it('pages through exactly the matching records, in ranking order, for q drawn from real names, ids and codes', async () => {
    const countries = [...new Set(activeIds.map((id) => records.get(id)!.countryCode))];
    let served = 0;
    // Filters are left out most of the time, so most searches page through large result sets.
    const sometimes = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, arbitrary);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          q: fc.oneof({ weight: 6, arbitrary: nameFragment() }, sample(activeIds), sample(countries).map((code) => code.toLowerCase())),
          country: sometimes(sample(countries)),
          target_types: sometimes(fc.uniqueArray(sample(TARGET_TYPES()), { minLength: 1, maxLength: 3 })),
        }),
        fc.integer({ min: 1, max: 50 }),
        async (drawn, limit) => {
          // Per run, so a shrunk counterexample reports only its own problems.
          const problems: Problems = [];
          const search = Object.fromEntries(Object.entries(drawn).filter(([, value]) => value !== undefined)) as FullSearch;
          const ids = await pageThrough(problems, search, Math.max(limit, 5));
          served += ids.length;
          const expected = expectedFull(search);
          if (new Set(ids).size !== ids.length) problems.push(`search ${JSON.stringify(search)}: duplicates across pages`);
          const missing = [...expected].filter((id) => !ids.includes(id));
          const extra = ids.filter((id) => !expected.has(id));
          if (missing.length > 0 || extra.length > 0) {
            problems.push(`search ${JSON.stringify(search)}: missing ${missing.slice(0, 5)} unexpected ${extra.slice(0, 5)}`);
          }
          checkFullRanking(problems, search, ids);
          expectNoProblems(problems);
        },
      ),
      { numRuns: 80 },
    );
    // The property ran over real result sets, not only empty ones.
    expect(served).toBeGreaterThan(500);
  });

  it('pages through every match of short, common fragments', async () => {
    const problems: Problems = [];
    for (const q of ['an', 'san', 'new', 'united', 'de', 'north', 'province of', '9']) {
      const served = await pageThrough(problems, { q }, 50);
      const expected = expectedFull({ q });
      if (served.length !== expected.size || served.some((id) => !expected.has(id))) problems.push(`q=${q}: ${served.length} served, ${expected.size} expected`);
      checkFullRanking(problems, { q }, served);
    }
    expectNoProblems(problems);
  });

  it('puts an exact id first, then the rest of its matches', async () => {
    const problems: Problems = [];
    for (const id of activeIds.filter((_, i) => i % 25 === 0)) {
      const reply = await get(`/v1/locations/search?${qs({ catalog: 'FULL', q: id, limit: '3' })}`);
      if (reply.body.data.locations?.[0]?.location_id !== id) problems.push(`GET ${reply.url}: first is ${reply.body.data.locations?.[0]?.location_id}`);
    }
    expectNoProblems(problems);
  });

  it('browses exactly the verified children of any parent, every page', async () => {
    // "parent_location_id: direct-child browsing; FULL restricts to the exact verified canonical parent".
    const problems: Problems = [];
    const parents = [...new Set([...chains.values()].map((chain) => chain.parent).filter((parent): parent is string => parent !== null))];
    for (const parent of parents.filter((_, i) => i % 4 === 0)) {
      const served = await pageThrough(problems, { parent_location_id: parent }, 50);
      const expected = expectedFull({ parent_location_id: parent });
      if (served.length !== expected.size || served.some((id) => !expected.has(id))) problems.push(`children of ${parent}: ${served.length} served, ${expected.size} expected`);
    }
    expectNoProblems(problems);
  });

  it('is case- and accent-insensitive', async () => {
    const accents: Record<string, string> = { a: 'á', e: 'é', i: 'î', o: 'ö', u: 'ü', c: 'ç', n: 'ñ' };
    await fc.assert(
      fc.asyncProperty(nameFragment(), fc.boolean(), async (q, upper) => {
          // Per run, so a shrunk counterexample reports only its own problems.
          const problems: Problems = [];
        const variant = [...q].map((char) => accents[char] ?? char).join('');
        const cased = upper ? variant.toUpperCase() : variant;
        const plain = await get(`/v1/locations/search?${qs({ catalog: 'FULL', q, limit: '50' })}`);
        const other = await get(`/v1/locations/search?${qs({ catalog: 'FULL', q: cased, limit: '50' })}`);
        const ids = (reply: Reply) => (reply.body.data.locations as { location_id: string }[]).map((location) => location.location_id);
        if (JSON.stringify(ids(plain)) !== JSON.stringify(ids(other))) problems.push(`q=${q} and q=${cased} differ`);
        expectNoProblems(problems);
      }),
      { numRuns: 60 },
    );
  });

  it('limit: 1 and 50 accepted, 20 by default', async () => {
    const sizes = [];
    for (const limit of ['1', '50', undefined]) {
      const reply = await get(`/v1/locations/search?${qs({ catalog: 'FULL', q: 'a', ...(limit && { limit }) })}`);
      expect(reply.status).toBe(200);
      sizes.push(reply.body.data.locations.length);
      expect(typeof reply.body.data.next_cursor).toBe('string');
    }
    expect(sizes).toEqual([1, 50, 20]);
  });

  it('binds a cursor to its constraints: another q, country, target_types or parent is a 400 naming cursor', async () => {
    const first = await get(`/v1/locations/search?${qs({ catalog: 'FULL', q: 'an', limit: '5' })}`);
    const cursor = first.body.data.next_cursor as string;
    const others: Record<string, string>[] = [{ q: 'and' }, { q: 'an', country: 'US' }, { q: 'an', target_types: 'City' }, { q: 'an', parent_location_id: '2840' }];
    for (const other of others) {
      const reply = await get(`/v1/locations/search?${qs({ catalog: 'FULL', ...other, cursor })}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('cursor'), data: {}, extra: {} });
    }
    // "reuse only with identical FULL constraints": the same ones continue where the first page stopped.
    const next = await get(`/v1/locations/search?${qs({ catalog: 'FULL', q: 'an', limit: '5', cursor })}`);
    const all = await get(`/v1/locations/search?${qs({ catalog: 'FULL', q: 'an', limit: '10' })}`);
    const ids = (reply: Reply) => (reply.body.data.locations as { location_id: string }[]).map((location) => location.location_id);
    expect([...ids(first), ...ids(next)]).toEqual(ids(all));
  });
});

function legacyTier(location: Record<string, any>, q: string): number | undefined {
  const fq = fold(q, { dropApostrophes: true });
  const aliases = [...Object.values((location.external_codes ?? {}) as Record<string, string>), ...(location.level === 'COUNTRY' ? [location.country_code] : [])];
  if (location.location_id === q || aliases.some((alias) => fold(alias) === fq)) return TIER.EXACT;
  // Name and canonical name each on its own: never text across the two.
  const name = fold(location.name, { dropApostrophes: true });
  const canonical = fold(location.canonical_name, { dropApostrophes: true });
  if (name.startsWith(fq)) return TIER.NAME_PREFIX;
  if (` ${name}`.includes(` ${fq}`) || ` ${canonical}`.includes(` ${fq}`)) return TIER.WORD_PREFIX;
  if (name.includes(fq) || canonical.includes(fq)) return TIER.SUBSTRING;
  // "LEGACY also matches aliases": everything FULL matches too, the country code of every entry included, last.
  if (/^[a-z]{2}$/.test(fq) && location.country_code === fq.toUpperCase()) return TIER.COUNTRY_CODE;
  return undefined;
}

describe('GET /v1/locations/search (LEGACY)', () => {
  async function legacySearch(problems: Problems, params: Record<string, string>): Promise<Record<string, any>[]> {
    const reply = await get(`/v1/locations/search?${qs(params)}`);
    checkEnvelope(problems, reply);
    if (reply.status !== 200) {
      problems.push(`GET ${reply.url}: ${reply.status} ${reply.body.message}`);
      return [];
    }
    checkCatalogFields(problems, reply, 'LEGACY', ['locations']);
    const locations = reply.body.data.locations as Record<string, any>[];
    locations.forEach((location, i) => {
      checkLegacyLocation(problems, `${reply.url} locations[${i}]`, location);
      if (JSON.stringify(location) !== JSON.stringify(legacyById.get(location.location_id))) problems.push(`GET ${reply.url}: ${location.location_id} differs from its lookup`);
    });
    return locations;
  }

  it('returns name, alias, id and country code matches ranked exact, name prefix, word prefix, substring, country code', async () => {
    const entries = [...legacyById.values()];
    const aliases = entries.flatMap((location) => Object.values((location.external_codes ?? {}) as Record<string, string>));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 6, arbitrary: fc.tuple(sample(entries), fc.nat(), fc.integer({ min: 2, max: 10 })).map(([entry, start, length]) => (entry.name as string).slice(start % entry.name.length, (start % entry.name.length) + length)) },
          sample(aliases),
          sample(entries).map((entry) => entry.location_id as string),
        ).filter((q) => /[\p{L}\p{N}]/u.test(q)),
        fc.constantFrom(undefined, 'COUNTRY', 'REGION', 'CITY', 'REGION,CITY'),
        async (q, levels) => {
          // Per run, so a shrunk counterexample reports only its own problems.
          const problems: Problems = [];
          const found = await legacySearch(problems, { q, limit: '50', ...(levels && { levels }) });
          const tiers = found.map((location) => legacyTier(location, q));
          const where = `q=${q}${levels ? ` levels=${levels}` : ''}`;
          if (tiers.some((tier) => tier === undefined)) {
            // LEGACY may match more than names (the reference also lists canonical_name), but never unrelated entries.
            const unrelated = found.filter((location, i) => tiers[i] === undefined && !fold(location.canonical_name, { dropApostrophes: true }).includes(fold(q, { dropApostrophes: true })));
            if (unrelated.length > 0) problems.push(`${where}: unrelated ${unrelated.map((location) => location.location_id)}`);
          }
          const ranked = tiers.filter((tier): tier is number => tier !== undefined);
          if (ranked.some((tier, i) => i > 0 && tier < ranked[i - 1]!)) problems.push(`${where}: ranking ${JSON.stringify(tiers)}`);
          const allowed = levels?.split(',');
          if (allowed && found.some((location) => !allowed.includes(location.level))) problems.push(`${where}: a level outside levels`);
          // Every name or alias match is served when the page is not full.
          const expected = entries.filter((entry) => legacyTier(entry, q) !== undefined && (!allowed || allowed.includes(entry.level)));
          if (found.length < 50 && expected.some((entry) => !found.some((location) => location.location_id === entry.location_id))) {
            problems.push(`${where}: ${expected.length} matches, ${found.length} served`);
          }
          if (found.length > 50) problems.push(`${where}: over limit`);
          expectNoProblems(problems);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('narrows by country and browses the country, region, city cascade', async () => {
    const problems: Problems = [];
    const entries = [...legacyById.values()];
    for (const parent of entries.filter((entry) => entry.level !== 'CITY')) {
      const children = entries.filter((entry) => entry.parent_location_id === parent.location_id);
      const found = await legacySearch(problems, { parent_location_id: parent.location_id, limit: '50' });
      if (found.some((location) => location.parent_location_id !== parent.location_id)) problems.push(`children of ${parent.location_id}: not a direct child`);
      if (found.length !== Math.min(50, children.length)) problems.push(`children of ${parent.location_id}: ${found.length} of ${children.length}`);
    }
    for (const country of entries.filter((entry) => entry.level === 'COUNTRY').slice(0, 60)) {
      const found = await legacySearch(problems, { q: 'a', country: country.country_code, limit: '50' });
      if (found.some((location) => location.country_code !== country.country_code)) problems.push(`country=${country.country_code}: another country served`);
    }
    expectNoProblems(problems);
  });

  it('limit: 1 and 50 accepted, 20 by default; locale accepted as reserved', async () => {
    const sizes = [];
    for (const limit of ['1', '50', undefined]) {
      const reply = await get(`/v1/locations/search?${qs({ q: 'a', ...(limit && { limit }) })}`);
      expect(reply.status).toBe(200);
      sizes.push(reply.body.data.locations.length);
    }
    expect(sizes).toEqual([1, 50, 20]);
    // "locale: reserved for future localized names; results use registry names".
    for (const catalog of ['LEGACY', 'FULL']) {
      const plain = await get(`/v1/locations/search?${qs({ catalog, q: 'mun' })}`);
      const localized = await get(`/v1/locations/search?${qs({ catalog, q: 'mun', locale: 'de-DE' })}`);
      expect(localized.status).toBe(200);
      expect(localized.body.data).toEqual(plain.body.data);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Parameter rules and errors
// ---------------------------------------------------------------------------------------------

describe('parameters each catalog does not take, and malformed values', () => {
  // ARCHITECTURE: "Location route errors: 400 BAD_REQUEST for invalid or catalog-incompatible
  // parameters, 404 NOT_FOUND for unknown ids, always in the envelope." A 400 names the parameter.
  const cases: [string, Record<string, string>, string][] = [
    // search: "FULL rejects" subdivision_code, subdivision_code_type, levels; target_types and cursor are FULL only.
    ['/v1/locations/search', { catalog: 'FULL', q: 'a', subdivision_code: 'US-CA' }, 'subdivision_code'],
    ['/v1/locations/search', { catalog: 'FULL', q: 'a', subdivision_code_type: 'AUTO' }, 'subdivision_code_type'],
    ['/v1/locations/search', { catalog: 'FULL', q: 'a', levels: 'COUNTRY' }, 'levels'],
    ['/v1/locations/search', { q: 'a', target_types: 'City' }, 'target_types'],
    ['/v1/locations/search', { catalog: 'LEGACY', q: 'a', target_types: 'City' }, 'target_types'],
    ['/v1/locations/search', { q: 'a', cursor: 'abc' }, 'cursor'],
    ['/v1/locations/search', { catalog: 'LEGACY', q: 'a', cursor: 'abc' }, 'cursor'],
    // "q ... FULL ... is required unless parent_location_id is given".
    ['/v1/locations/search', { catalog: 'FULL' }, 'q'],
    ['/v1/locations/search', { catalog: 'FULL', country: 'US' }, 'q'],
    ['/v1/locations/search', { catalog: 'FULL', q: 'a', country: 'USA' }, 'country'],
    ['/v1/locations/search', { catalog: 'FULL', q: 'a', country: 'U1' }, 'country'],
    ['/v1/locations/search', { q: 'a', country: 'USA' }, 'country'],
    ['/v1/locations/search', { catalog: 'FULL', parent_location_id: '-1' }, 'parent_location_id'],
    ['/v1/locations/search', { catalog: 'FULL', parent_location_id: '28 40' }, 'parent_location_id'],
    ['/v1/locations/search', { parent_location_id: 'x' }, 'parent_location_id'],
    ['/v1/locations/search', { catalog: 'FULL', q: 'a', cursor: 'not-a-cursor' }, 'cursor'],
    ['/v1/locations/search', { catalog: 'full', q: 'a' }, 'catalog'],
    // resolve: "FULL rejects" country, subdivision_code, subdivision_code_type, city, limit; location_id is FULL only.
    ['/v1/locations/resolve', { catalog: 'FULL', location_id: '2840', country: 'US' }, 'country'],
    ['/v1/locations/resolve', { catalog: 'FULL', location_id: '2840', subdivision_code: 'US-CA' }, 'subdivision_code'],
    ['/v1/locations/resolve', { catalog: 'FULL', location_id: '2840', subdivision_code_type: 'AUTO' }, 'subdivision_code_type'],
    ['/v1/locations/resolve', { catalog: 'FULL', location_id: '2840', city: 'x' }, 'city'],
    ['/v1/locations/resolve', { catalog: 'FULL', location_id: '2840', limit: '5' }, 'limit'],
    ['/v1/locations/resolve', { catalog: 'FULL' }, 'location_id'],
    ['/v1/locations/resolve', { catalog: 'FULL', location_id: 'abc' }, 'location_id'],
    ['/v1/locations/resolve', { location_id: '2840' }, 'location_id'],
    ['/v1/locations/resolve', { catalog: 'LEGACY', country: 'US', location_id: '2840' }, 'location_id'],
    ['/v1/locations/resolve', { country: 'USA' }, 'country'],
    ['/v1/locations/resolve', { country: 'US', subdivision_code_type: 'NOPE', subdivision_code: 'US-CA' }, 'subdivision_code_type'],
    ['/v1/locations/abc', { catalog: 'FULL' }, 'location_id'],
    ['/v1/locations/abc', {}, 'location_id'],
    ['/v1/locations/2840', { catalog: 'other' }, 'catalog'],
  ];
  // "limit: 1 to 50" on search (both) and LEGACY resolve.
  for (const limit of ['0', '51', '-1', '1.5', 'ten', '']) {
    cases.push(['/v1/locations/search', { catalog: 'FULL', q: 'a', limit }, 'limit']);
    cases.push(['/v1/locations/search', { q: 'a', limit }, 'limit']);
    cases.push(['/v1/locations/resolve', { country: 'US', limit }, 'limit']);
  }

  it.each(cases)('%s %o is a 400 BAD_REQUEST naming %s', async (path, params, parameter) => {
    const query = qs(params);
    const reply = await get(`${path}${query ? `?${query}` : ''}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(reply.body).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(parameter), data: {}, extra: {} });
  });

  it('answers 404 NOT_FOUND in the envelope for well-formed ids that are not active', async () => {
    const unknown = ['1', '99999999', '9075393']; // 9075393: a parent the file does not contain
    for (const id of unknown) {
      for (const url of [`/v1/locations/${id}?catalog=FULL`, `/v1/locations/resolve?catalog=FULL&location_id=${id}`, `/v1/locations/${id}`]) {
        const reply = await get(url);
        expect(reply.status, url).toBe(404);
        expect(reply.body).toEqual({ code: 'NOT_FOUND', message: expect.stringContaining(id), data: {}, extra: {} });
      }
    }
  });

  it('answers a U+0000 in any FULL search parameter with a 200 or a 400, never a 500', async () => {
    // Text with NUL cannot reach a database column; whatever serves the search must not fail on it.
    const problems: Problems = [];
    const cases: Record<string, string>[] = [
      { q: 'cal', target_types: 'City\u0000' }, { parent_location_id: '2840', target_types: '\u0000' }, { q: 'ca\u0000l' },
      { q: 'cal', locale: '\u0000' }, { q: 'cal', cursor: '\u0000' }, { q: 'cal', country: 'U\u0000' },
    ];
    for (const params of cases) {
      const reply = await get(`/v1/locations/search?${qs({ catalog: 'FULL', ...params })}`);
      checkEnvelope(problems, reply);
      if (![200, 400].includes(reply.status)) problems.push(`GET ${reply.url}: ${reply.status}`);
    }
    expectNoProblems(problems);
  });

  it('never answers 500 and always answers the envelope, whatever the query string', async () => {
    const names = [
      'catalog', 'q', 'parent_location_id', 'country', 'target_types', 'subdivision_code', 'subdivision_code_type', 'levels',
      'limit', 'cursor', 'locale', 'location_id', 'city',
    ];
    // U+0000 and other code points a database refuses in text are drawn on purpose: every value,
    // whatever it holds, must end in a 400 or a result, never a 500.
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom('FULL', 'LEGACY', '2840', 'US', 'us', 'COUNTRY', 'City,State', 'US-CA', '50', '0', '%', '_', '\\', "'", '\u0301', '\u0000', 'City\u0000'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('search', 'resolve', 'lookup'),
        fc.oneof(sample(activeIds), fc.string({ unit: 'binary', maxLength: 12 })),
        fc.array(fc.tuple(fc.oneof({ weight: 4, arbitrary: sample(names) }, fc.string({ maxLength: 6 })), value), { maxLength: 5 }),
        async (route, id, pairs) => {
          // Per run, so a shrunk counterexample reports only its own problems.
          const problems: Problems = [];
          const query = new URLSearchParams(pairs).toString();
          const segment = encodeURIComponent(id);
          // An empty segment is another route (/v1/locations/?...), not a lookup.
          if (route === 'lookup' && segment === '') return true;
          const path = route === 'lookup' ? segment : route;
          const reply = await get(`/v1/locations/${path}?${query}`);
          checkEnvelope(problems, reply);
          if (![200, 400, 404].includes(reply.status)) problems.push(`GET ${reply.url}: ${reply.status} ${reply.body?.code}`);
          expectNoProblems(problems);
        },
      ),
      { numRuns: 1500 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Cases once answered against the rules, each pinned by the rule it restores.
// ---------------------------------------------------------------------------------------------

describe('rules once broken', () => {
  /** A 404 NOT_FOUND envelope whose message names `id`, or a problem saying what came instead. */
  function expectNotFound(problems: Problems, reply: Reply, id: string) {
    checkEnvelope(problems, reply);
    if (reply.status !== 404 || reply.body.code !== 'NOT_FOUND' || !reply.body.message.includes(id)) {
      problems.push(`GET ${reply.url}: ${reply.status} ${reply.body.code} ${JSON.stringify(reply.body.message)}, expected 404 NOT_FOUND naming ${id}`);
    }
  }
  function expectBadRequest(problems: Problems, reply: Reply, parameter: string) {
    checkEnvelope(problems, reply);
    if (reply.status !== 400 || reply.body.code !== 'BAD_REQUEST' || !reply.body.message.includes(parameter)) {
      problems.push(`GET ${reply.url}: ${reply.status} ${reply.body.code} ${JSON.stringify(reply.body.message)}, expected 400 BAD_REQUEST naming ${parameter}`);
    }
  }
  const ids = (reply: Reply) => ((reply.body.data.locations ?? []) as { location_id: string }[]).map((location) => location.location_id);
  /** Every route that takes an id, in both catalogs. */
  const idUrls = (id: string) => [
    `/v1/locations/${id}`,
    `/v1/locations/${id}?catalog=FULL`,
    `/v1/locations/resolve?${qs({ catalog: 'FULL', location_id: id })}`,
    `/v1/locations/search?${qs({ parent_location_id: id })}`,
    `/v1/locations/search?${qs({ catalog: 'FULL', parent_location_id: id })}`,
  ];

  it('D2: an id of 20 or more digits is well formed (^[0-9]+$): 404 NOT_FOUND in both catalogs, not 400', async () => {
    const problems: Problems = [];
    // In the path as in a query parameter, whatever the length (101: past the router's default limit).
    for (const id of ['12345678901234567890', '99999999999999999999999', '1'.repeat(100), '1'.repeat(101), '9'.repeat(300)]) {
      for (const url of idUrls(id)) expectNotFound(problems, await get(url), id);
    }
    expectNoProblems(problems);
  });

  it('D3: country must match ^[A-Z]{2}$ in LEGACY too: lower or mixed case is a 400 naming country', async () => {
    const problems: Problems = [];
    const rejected: [string, Record<string, string>][] = [
      ['search', { q: 'cal', country: 'us' }],
      ['search', { country: 'us' }],
      ['search', { q: 'cal', country: 'Us' }],
      ['search', { subdivision_code: 'CA', country: 'us' }],
      ['search', { catalog: 'FULL', q: 'cal', country: 'us' }],
      ['resolve', { country: 'us' }],
      ['resolve', { country: 'Au', city: 'sydney' }],
      ['resolve', { country: 'aU' }],
      ['resolve', { subdivision_code: 'CA', country: 'us' }],
    ];
    for (const [route, params] of rejected) expectBadRequest(problems, await get(`/v1/locations/${route}?${qs(params)}`), 'country');
    // The upper-case forms answer.
    for (const [route, params] of [['search', { q: 'cal', country: 'US' }], ['resolve', { country: 'AU', city: 'sydney' }], ['resolve', { country: 'US' }]] as const) {
      const reply = await get(`/v1/locations/${route}?${qs(params)}`);
      checkEnvelope(problems, reply);
      if (reply.status !== 200) problems.push(`GET ${reply.url}: ${reply.status}`);
    }
    expectNoProblems(problems);
  });

  it('D6: FULL browsing under an id that is not active is 404 NOT_FOUND naming it; an active id without children is 200 []', async () => {
    const problems: Problems = [];
    // Raw parents where a chain stops (9075393: Kabul's, missing from the file), and ids nowhere in it.
    const unresolved = [...new Set([...chains.values()].map((chain) => chain.unresolved).filter((id): id is string => id !== null))];
    expect(unresolved).toContain('9075393');
    for (const id of ['99999999', '1', ...unresolved.slice(0, 10)]) {
      for (const catalog of ['FULL', 'LEGACY']) {
        expectNotFound(problems, await get(`/v1/locations/search?${qs({ catalog, parent_location_id: id })}`), id);
      }
      // Other constraints do not turn it into an empty page.
      expectNotFound(problems, await get(`/v1/locations/search?${qs({ catalog: 'FULL', parent_location_id: id, q: 'a', country: 'US', target_types: 'City' })}`), id);
    }
    const parents = new Set([...chains.values()].map((chain) => chain.parent));
    const childless = activeIds.filter((id) => !parents.has(id));
    expect(childless.length).toBeGreaterThan(100);
    for (const id of childless.filter((_, i) => i % 50 === 0)) {
      const reply = await get(`/v1/locations/search?${qs({ catalog: 'FULL', parent_location_id: id })}`);
      checkEnvelope(problems, reply);
      if (reply.status !== 200 || ids(reply).length !== 0 || 'next_cursor' in reply.body.data) problems.push(`GET ${reply.url}: ${reply.status} ${ids(reply)}`);
    }
    expectNoProblems(problems);
  });

  it('D7: a zero-padded id is not an id of either catalog: 404 NOT_FOUND on every route', async () => {
    const problems: Problems = [];
    expectNotFound(problems, await get('/v1/locations/02840?catalog=FULL'), '02840');
    const sampled = [...legacyById.keys()].filter((_, i) => i % 40 === 0);
    for (const id of ['2840', '21137', ...sampled]) {
      for (const padded of [`0${id}`, `00${id}`]) {
        for (const url of idUrls(padded)) expectNotFound(problems, await get(url), padded);
      }
    }
    for (const id of ['0', '00']) for (const url of idUrls(id)) expectNotFound(problems, await get(url), id);
    expectNoProblems(problems);
  });

  describe('LEGACY search without q browses', () => {
    const levelOrder = (level: string) => LEVELS.indexOf(level);
    const byName = (a: Record<string, any>, b: Record<string, any>) => {
      const [x, y] = [fold(a.name, { dropApostrophes: true }), fold(b.name, { dropApostrophes: true })];
      return x < y ? -1 : x > y ? 1 : 0;
    };

    it('with nothing at all: the top-level countries, as levels=COUNTRY does', async () => {
      for (const limit of [undefined, '1', '50']) {
        const bare = await get(`/v1/locations/search?${qs({ ...(limit && { limit }) })}`);
        const countries = await get(`/v1/locations/search?${qs({ levels: 'COUNTRY', ...(limit && { limit }) })}`);
        expect(bare.status, JSON.stringify(bare.body)).toBe(200);
        expect(bare.body).toEqual(countries.body);
        expect(ids(bare)).toHaveLength(Number(limit ?? 20));
        expect(bare.body.data.locations.every((location: { level: string; parent_location_id: string | null }) => location.level === 'COUNTRY' && location.parent_location_id === null)).toBe(true);
        expect(bare.body.extra).toEqual({ pagination: { limit: Number(limit ?? 20), returned: Number(limit ?? 20), has_more: true } });
      }
      const first = await get('/v1/locations/search?limit=3');
      expect(first.body.data.locations.map((location: { name: string }) => location.name)).toEqual(['Afghanistan', 'Albania', 'Algeria']);
    });

    it('with country: its COUNTRY entry, then REGIONs, then CITYs, each by name, paged by limit', async () => {
      const problems: Problems = [];
      const entries = [...legacyById.values()];
      const countries = entries.filter((entry) => entry.level === 'COUNTRY');
      expect(countries.length).toBeGreaterThan(200);
      for (const country of countries) {
        const code = country.country_code as string;
        const expected = entries.filter((entry) => entry.country_code === code);
        const reply = await get(`/v1/locations/search?${qs({ country: code, limit: '50' })}`);
        checkEnvelope(problems, reply);
        if (reply.status !== 200) {
          problems.push(`GET ${reply.url}: ${reply.status} ${reply.body.message}`);
          continue;
        }
        checkCatalogFields(problems, reply, 'LEGACY', ['locations']);
        const served = reply.body.data.locations as Record<string, any>[];
        served.forEach((location, i) => checkLegacyLocation(problems, `${reply.url} locations[${i}]`, location));
        if (served[0]?.location_id !== country.location_id) problems.push(`GET ${reply.url}: first is ${served[0]?.location_id}, not the country ${country.location_id}`);
        if (served.some((location) => location.country_code !== code)) problems.push(`GET ${reply.url}: another country served`);
        if (served.length !== Math.min(50, expected.length)) problems.push(`GET ${reply.url}: ${served.length} of ${expected.length}`);
        if (reply.body.extra.pagination.has_more !== expected.length > 50) problems.push(`GET ${reply.url}: has_more ${reply.body.extra.pagination.has_more} with ${expected.length} entries`);
        served.forEach((location, i) => {
          if (i === 0) return;
          const previous = served[i - 1]!;
          const order = levelOrder(previous.level) - levelOrder(location.level) || byName(previous, location);
          if (order > 0) problems.push(`GET ${reply.url}: ${location.location_id} (${location.level} ${location.name}) after ${previous.location_id} (${previous.level} ${previous.name})`);
        });
      }
      expectNoProblems(problems);
    });

    it('with country: narrowed by levels, bounded by limit, and every other rule kept', async () => {
      const problems: Problems = [];
      const us = [...legacyById.values()].filter((entry) => entry.country_code === 'US');
      for (const levels of ['COUNTRY', 'REGION', 'CITY', 'REGION,CITY']) {
        const allowed = levels.split(',');
        const reply = await get(`/v1/locations/search?${qs({ country: 'US', levels, limit: '50' })}`);
        const expected = us.filter((entry) => allowed.includes(entry.level));
        if (reply.status !== 200) problems.push(`GET ${reply.url}: ${reply.status}`);
        else if (ids(reply).length !== Math.min(50, expected.length) || reply.body.data.locations.some((location: { level: string }) => !allowed.includes(location.level))) {
          problems.push(`GET ${reply.url}: ${ids(reply).length} served of ${expected.length}`);
        }
      }
      for (const limit of ['1', '20', undefined]) {
        const reply = await get(`/v1/locations/search?${qs({ country: 'US', ...(limit && { limit }) })}`);
        if (ids(reply).length !== Number(limit ?? 20) || ids(reply)[0] !== '2840') problems.push(`GET ${reply.url}: ${ids(reply)}`);
      }
      const unknownCountry = await get('/v1/locations/search?country=ZZ');
      if (unknownCountry.status !== 200 || ids(unknownCountry).length !== 0) problems.push(`GET ${unknownCountry.url}: ${unknownCountry.status}, ${ids(unknownCountry)}`);
      const rejected: [Record<string, string>, string][] = [
        [{ country: 'US', levels: 'STATE' }, 'levels'],
        [{ country: 'US', levels: '' }, 'levels'],
        [{ levels: 'COUNTRY,' }, 'levels'],
        [{ country: 'US', limit: '0' }, 'limit'],
        [{ country: 'US', limit: '51' }, 'limit'],
        [{ limit: '0' }, 'limit'],
        [{ subdivision_code: 'CA' }, 'country'],
        [{ country: 'US', subdivision_code_type: 'CLDR' }, 'subdivision_code_type'],
        [{ country: 'US', q: '' }, 'q'],
        [{ country: 'US', cursor: 'abc' }, 'cursor'],
      ];
      for (const [params, parameter] of rejected) expectBadRequest(problems, await get(`/v1/locations/search?${qs(params)}`), parameter);
      // q stays required in FULL unless parent_location_id is given.
      expectBadRequest(problems, await get('/v1/locations/search?catalog=FULL&country=US'), 'q');
      expectNoProblems(problems);
    });
  });

  it('D5: FULL matches name or canonical_name, never text across the two (route and the SQL reference)', async () => {
    const problems: Problems = [];
    const byName = (name: string) => activeIds.find((id) => records.get(id)!.name === name && records.get(id)!.parentId === null) ??
      activeIds.find((id) => records.get(id)!.name === name)!;
    // The end of the name followed by the start of the canonical name: found only across the seam.
    const seams: [string, string][] = [['district g', 'Guarda District'], ['austria a', 'Austria'], ['alabama alabama', 'Alabama']];
    // Seam queries of many more records: last word of the name + first letters of the canonical name.
    for (const id of activeIds.filter((_, i) => i % 40 === 0)) {
      const { name, canonicalName } = records.get(id)!;
      const last = fold(name).split(' ').at(-1)!;
      const q = `${last} ${fold(canonicalName).slice(0, 3).trim()}`;
      if (last !== '' && !fullMatches(records.get(id)!, q)) seams.push([q, name]);
    }
    for (const [q, name] of seams) {
      const id = byName(name);
      if (fullMatches(records.get(id)!, q)) problems.push(`q=${q} matches ${id} within one field; not a seam query`);
      const served = await pageThrough(problems, { q }, 50);
      if (served.includes(id)) problems.push(`q=${q}: ${id} (${name}) served`);
      const expected = expectedFull({ q });
      if (served.length !== expected.size || served.some((found) => !expected.has(found))) problems.push(`q=${q}: ${served.length} served, ${expected.size} expected`);
      // The SQL definition the in-memory index is compared with answers the same.
      const sql = await searchLocations(t.runtime.db, releaseId, { q: normalizeSearchText(q), country: null, targetTypes: null, parentId: null }, 50);
      const sqlIds = sql.locations.map((location) => location.location_id);
      if (JSON.stringify(sqlIds) !== JSON.stringify(served.slice(0, 50))) problems.push(`q=${q}: SQL ${sqlIds.slice(0, 5)} vs route ${served.slice(0, 5)}`);
    }
    expect(seams.length).toBeGreaterThan(50);
    expectNoProblems(problems);
  });

  it('D4: a country code q puts the top-level record of that code first in both catalogs, territories included', async () => {
    const problems: Problems = [];
    const topLevel = activeIds.filter((id) => records.get(id)!.parentId === null);
    // The 27 territories the provider lists at top level with a type other than Country are among them.
    expect(topLevel.filter((id) => records.get(id)!.targetType !== 'Country').length).toBe(27);
    for (const id of topLevel) {
      const q = records.get(id)!.countryCode.toLowerCase();
      const full = await get(`/v1/locations/search?${qs({ catalog: 'FULL', q, limit: '1' })}`);
      checkEnvelope(problems, full);
      if (ids(full)[0] !== id) problems.push(`GET ${full.url}: first is ${ids(full)[0]}, expected ${id} (${records.get(id)!.name})`);
      const legacy = await get(`/v1/locations/search?${qs({ q, limit: '1' })}`);
      checkEnvelope(problems, legacy);
      if (ids(legacy)[0] !== id) problems.push(`GET ${legacy.url}: first is ${ids(legacy)[0]}, expected ${id} (${records.get(id)!.name})`);
    }
    for (const [code, id] of [['pr', '2630'], ['hk', '2344']] as const) {
      const reply = await get(`/v1/locations/search?${qs({ catalog: 'FULL', q: code, limit: '3' })}`);
      if (ids(reply)[0] !== id) problems.push(`GET ${reply.url}: first is ${ids(reply)[0]}, expected ${id}`);
    }
    expectNoProblems(problems);
  });

  it('LEGACY q also matches canonical_name, in the same tiers, after the entries whose name matches, never across the two', async () => {
    const problems: Problems = [];
    const reply = await get(`/v1/locations/search?${qs({ q: 'united states', limit: '50' })}`);
    checkEnvelope(problems, reply);
    const found = reply.body.data.locations as Record<string, any>[];
    const byName = found.map((location) => fold(location.name).includes('united states'));
    const byCanonical = found.map((location) => fold(location.canonical_name).includes('united states'));
    if (!found.some((location) => location.location_id === '21137')) problems.push(`q=united states: California (21137) not found`);
    if (found.some((_, i) => !byName[i] && !byCanonical[i])) problems.push('q=united states: an entry matching neither name nor canonical name');
    const firstCanonicalOnly = byName.indexOf(false);
    if (firstCanonicalOnly < 0 || byName.lastIndexOf(true) > firstCanonicalOnly) problems.push(`q=united states: name matches not all first (${JSON.stringify(byName)})`);
    if (found[0]?.location_id !== '2840') problems.push(`q=united states: first is ${found[0]?.location_id}`);
    // Word prefix within the canonical name; substring ranks after it.
    const ranked = await get(`/v1/locations/search?${qs({ q: 'californ', country: 'US', limit: '50' })}`);
    const rankedIds = ids(ranked);
    if (rankedIds[0] !== '21137') problems.push(`q=californ: first is ${rankedIds[0]}`);
    // Never across the seam of name and canonical name.
    for (const q of ['california california', 'alabama alabama', 'district g']) {
      const seam = await get(`/v1/locations/search?${qs({ q, limit: '50' })}`);
      for (const location of seam.body.data.locations as Record<string, any>[]) {
        if (!fold(location.name).includes(q) && !fold(location.canonical_name).includes(q)) problems.push(`q=${q}: ${location.location_id} found across the seam`);
      }
    }
    expectNoProblems(problems);
  });

  it('locale is reserved on every route of both catalogs: accepted, results unchanged, a warning in extra', async () => {
    const problems: Problems = [];
    const urls = [
      ['/v1/locations/search', { q: 'mun' }],
      ['/v1/locations/search', { country: 'AU' }],
      ['/v1/locations/search', { catalog: 'FULL', q: 'mun' }],
      ['/v1/locations/resolve', { country: 'AU', city: 'syd' }],
      ['/v1/locations/resolve', { subdivision_code: 'US-CA' }],
      ['/v1/locations/resolve', { catalog: 'FULL', location_id: '2840' }],
      ['/v1/locations/2840', {}],
      ['/v1/locations/2840', { catalog: 'FULL' }],
    ] as const;
    for (const [path, params] of urls) {
      const plain = await get(`${path}?${qs(params)}`);
      const localized = await get(`${path}?${qs({ ...params, locale: 'de-DE' })}`);
      checkEnvelope(problems, localized);
      if (localized.status !== 200) {
        problems.push(`GET ${localized.url}: ${localized.status} ${localized.body.message}`);
        continue;
      }
      if (JSON.stringify(localized.body.data) !== JSON.stringify(plain.body.data)) problems.push(`GET ${localized.url}: data differs from without locale`);
      const { warnings, ...rest } = localized.body.extra;
      // One text in both catalogs.
      if (JSON.stringify(warnings) !== JSON.stringify([LOCALE_WARNING])) problems.push(`GET ${localized.url}: warnings ${JSON.stringify(warnings)}`);
      if (JSON.stringify(rest) !== JSON.stringify(plain.body.extra)) problems.push(`GET ${localized.url}: extra ${JSON.stringify(localized.body.extra)} vs ${JSON.stringify(plain.body.extra)}`);
      // Like every parameter, once.
      expectBadRequest(problems, await get(`${path}?${qs(params)}${Object.keys(params).length ? '&' : ''}locale=de&locale=fr`), 'locale');
    }
    expectNoProblems(problems);
  });
});

describe('429', () => {
  it('answers every location route, both catalogs, with the envelope and extra.retry_after_seconds', async () => {
    // Its own app with a limit of one request a minute per address, in-process, no catalog needed:
    // the limit is checked before the route runs.
    const limited = await createTestApp({ env: { REDIS_URL: '', LOCATION_RATE_LIMIT: '1' } });
    try {
      const urls = [
        '/v1/locations/search?q=a', '/v1/locations/search?catalog=FULL&q=a', '/v1/locations/resolve?country=US',
        '/v1/locations/resolve?catalog=FULL&location_id=2840', '/v1/locations/2840', '/v1/locations/2840?catalog=FULL',
      ];
      for (const [i, url] of urls.entries()) {
        const remoteAddress = `198.51.100.${i + 1}`;
        await limited.app.inject({ method: 'GET', url, remoteAddress });
        const response = await limited.app.inject({ method: 'GET', url, remoteAddress });
        expect(response.statusCode, url).toBe(429);
        const body = response.json();
        expect(Object.keys(body).sort()).toEqual(['code', 'data', 'extra', 'message']);
        expect(body.data).toEqual({});
        expect(body.code).not.toBe('SUCCESS');
        // ARCHITECTURE: "429: extra.retry_after_seconds is always present when the service rate-limits."
        expect(Number.isInteger(body.extra.retry_after_seconds) && body.extra.retry_after_seconds >= 1).toBe(true);
      }
    } finally {
      await limited.close();
    }
  });
});

describe('coverage of this suite', () => {
  it('sent thousands of requests over every active id of both catalogs', () => {
    // Printed so a run shows how much was checked, and asserted so a refactor cannot quietly shrink it.
    console.info(`location conformance: ${requests} requests, ${activeIds.length} FULL ids, ${legacyById.size} LEGACY ids`);
    expect(requests).toBeGreaterThan(3 * activeIds.length);
  });
});
