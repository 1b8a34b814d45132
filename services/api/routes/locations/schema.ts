import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { errorStatuses, methodNotAllowedStatus, successEnvelope } from '../../../../platform/http/envelope-schema.js';
import { withExamples, type ResponseExamples } from '../../../../platform/http/response-examples.js';
import { TAG } from '../../openapi/tags.js';
import { lookupExamples, resolveExamples, searchExamples } from './examples.js';

/**
 * The location routes' parameters and answers (reference: Location object and the three location
 * routes), for the routes' `schema`. The handlers check parameters themselves (each catalog
 * rejects the other's parameters with its own message), so the request schemas only document
 * them; the answers are written as JSON text, so the response schemas are never used to
 * serialize. Each answer has one shape per catalog (the reference's Location object), LEGACY or FULL.
 */

const LOCATION_ID = '^[0-9]+$';
const COUNTRY = '^[A-Z]{2}$';
const level = Type.Unsafe<string>({ type: 'string', enum: ['COUNTRY', 'REGION', 'CITY'] });
const locationId = (description: string) => Type.String({ pattern: LOCATION_ID, description });
const nullableId = (description: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], pattern: LOCATION_ID, description });
const closed = { additionalProperties: false } as const;

const catalog = Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['LEGACY', 'FULL'], default: 'LEGACY', description: 'the catalog to read' }));
const locale = Type.Optional(Type.String({ description: 'reserved for future localized names; accepted and reported in extra.warnings' }));
const subdivisionCodeType = Type.Optional(
  Type.Unsafe<string>({ type: 'string', enum: ['AUTO', 'ISO_3166_2', 'CLDR', 'PROVIDER_SHORT'], default: 'AUTO', description: 'LEGACY only' }),
);

const levelOf = (description: string) => ({ ...level, description });
const chainStatus = Type.Unsafe<string>({ type: 'string', enum: ['COMPLETE', 'UNRESOLVED_SOURCE_PARENT'] });

/** A LEGACY path node. */
const legacyPathNode = Type.Object({ location_id: locationId('the node\'s id'), name: Type.String(), level: levelOf('the registry level') }, closed);
/** A FULL path node: only verified relations, never an invented segment. */
const fullPathNode = Type.Object(
  {
    location_id: locationId('the node\'s id'),
    name: Type.String(),
    canonical_name: Type.String(),
    country_code: Type.String({ pattern: COUNTRY }),
    target_type: Type.String({ description: 'the raw source target type' }),
    hierarchy_precision: Type.Integer({ minimum: 1, description: 'one-based verified depth' }),
    legacy_level: Type.Optional(levelOf('when representable; does not relabel the raw type')),
  },
  closed,
);

const common = {
  location_id: locationId('numeric id aligned to the source geo-target criteria id'),
  name: Type.String({ description: 'short display name' }),
  canonical_name: Type.String({ description: 'provider canonical name' }),
  country_code: Type.String({ pattern: COUNTRY, description: 'ISO 3166-1 alpha-2, uppercase' }),
  target_type: Type.String({ description: 'the exact raw source target type' }),
};

/** A LEGACY location (COUNTRY, REGION, CITY). */
const legacyLocation = Type.Object(
  {
    ...common,
    level: levelOf('COUNTRY, REGION or CITY'),
    parent_location_id: nullableId('the immediate registry parent'),
    path: Type.Array(legacyPathNode, { description: 'root to self' }),
    external_codes: Type.Optional(
      Type.Object(
        {
          iso_3166_2: Type.Optional(Type.String({ pattern: '^[A-Z]{2}-[A-Z0-9]{1,3}$' })),
          cldr_subdivision: Type.Optional(Type.String({ pattern: '^[A-Z]{2}[A-Z0-9]{1,3}$' })),
          provider_short: Type.Optional(Type.String({ description: 'country-scoped short code' })),
        },
        { ...closed, description: 'lookup aliases' },
      ),
    ),
  },
  { ...closed, description: 'a LEGACY location' },
);

/** A FULL location: raw types kept, verified parent chains. */
const fullLocation = Type.Object(
  {
    ...common,
    source_parent_location_id: nullableId('the raw parent id from the source'),
    parent_location_id: nullableId('only a verified active source-parent edge; null when none can be verified'),
    path: Type.Array(fullPathNode, { description: 'root to self, verified relations only' }),
    hierarchy_precision: Type.Integer({ minimum: 1, description: 'one-based verified depth' }),
    legacy_level: Type.Optional(levelOf('when representable; does not relabel the raw type')),
    chain_status: chainStatus,
    unresolved_source_parent_location_id: Type.Optional(locationId('when chain_status is UNRESOLVED_SOURCE_PARENT: the raw source parent that could not be resolved')),
  },
  {
    ...closed,
    description: 'a FULL location',
    if: { properties: { chain_status: { const: 'UNRESOLVED_SOURCE_PARENT' } }, required: ['chain_status'] },
    then: { required: ['unresolved_source_parent_location_id'] },
    else: { not: { required: ['unresolved_source_parent_location_id'] } },
  },
);

const legacyCatalogFields = {
  registry_version: Type.String({ description: 'the LEGACY registry version' }),
  source_file_date: Type.String({ format: 'date', description: 'the pinned source file date' }),
};
const fullCatalogFields = {
  catalog: Type.Literal('FULL'),
  catalog_version: Type.String(),
  source_file_date: Type.String({ format: 'date', description: 'the pinned source file date' }),
};
const locationIds = Type.Array(Type.String({ pattern: LOCATION_ID }), { description: 'self to root' });
const legacyChain = { location: legacyLocation, path: Type.Array(legacyPathNode, { description: 'same as location.path' }), location_ids: locationIds };
const fullChain = { location: fullLocation, path: Type.Array(fullPathNode, { description: 'same as location.path' }), location_ids: locationIds };
/** One data shape per catalog: LEGACY (the default) or FULL. */
const perCatalog = (legacy: TProperties, full: TProperties) =>
  Type.Union([Type.Object({ ...legacyCatalogFields, ...legacy }, { ...closed, title: 'LEGACY' }), Type.Object({ ...fullCatalogFields, ...full }, { ...closed, title: 'FULL' })]);
const extraFields = {
  warnings: Type.Optional(Type.Array(Type.String(), {
    description: 'when locale is given (it is reserved); LEGACY: when subdivision_code found its location as an alias (a former code, a territory listed as a country), or a city name several candidates share',
  })),
  subdivision_code_type: Type.Optional(Type.String({ description: 'LEGACY: how subdivision_code was matched' })),
};
const extra = (fields: TProperties) => Type.Object(fields, closed);
const expansion = Type.Object(
  {
    location_id: Type.String({ pattern: LOCATION_ID }),
    includes: Type.Literal('SELF_AND_CHILDREN'),
  },
  { ...closed, description: 'LEGACY search: the scope was widened past one location: the region subdivision_code names and its cities (SELF_AND_CHILDREN)' },
);
// README, "Choices where the reference says not shown": the location routes' errors.
const locationErrors = errorStatuses({
  400: { BAD_REQUEST: 'an invalid parameter, or one the catalog does not take; the message names it' },
  404: { NOT_FOUND: 'an id (path, parent_location_id, location_id) or code the catalog does not have' },
  ...methodNotAllowedStatus('GET, HEAD'),
  429: { RATE_LIMITED: 'too many requests in a short window; retry after extra.retry_after_seconds' },
  503: {
    CATALOG_NOT_LOADED: 'no geo-target release is loaded yet; the message says how to load one',
    CATALOG_UNAVAILABLE: 'the stored catalog cannot be read right now (its database is down) and this process holds no copy; retry later',
  },
});
const responses = (data: TSchema, extraSchema: TObject, description: string, examples: ResponseExamples) =>
  withExamples({ 200: successEnvelope(data, extraSchema, description), ...locationErrors }, examples);
const tags = [TAG.locations];
const pagination = Type.Object(
  { limit: Type.Integer(), returned: Type.Integer(), has_more: Type.Boolean() },
  { ...closed, description: 'the page: limit asked for, locations (or LEGACY resolve candidates) returned, and whether more matched' },
);

export const searchSchema = {
  summary: 'Search locations',
  tags,
  querystring: Type.Object(
    {
      catalog,
      q: Type.Optional(Type.String({ pattern: '\\S', description: 'case-insensitive text, not blank; FULL requires it unless parent_location_id is given' })),
      parent_location_id: Type.Optional(locationId('direct-child browsing')),
      country: Type.Optional(Type.String({ pattern: COUNTRY })),
      target_types: Type.Optional(Type.String({ description: 'FULL only: comma-separated raw source types, in any letter case (Postal Code, City; not levels)' })),
      subdivision_code: Type.Optional(Type.String({ pattern: '\\S', description: 'LEGACY only: ISO 3166-2, CLDR or provider short code' })),
      subdivision_code_type: subdivisionCodeType,
      levels: Type.Optional(Type.String({ description: 'LEGACY only: comma-separated subset of COUNTRY, REGION, CITY' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20 })),
      cursor: Type.Optional(Type.String({ description: 'FULL only: data.next_cursor of the previous page' })),
      locale,
    },
    closed,
  ),
  response: responses(
    perCatalog(
      { locations: Type.Array(legacyLocation) },
      { locations: Type.Array(fullLocation), next_cursor: Type.Optional(Type.String({ description: 'when another page exists' })) },
    ),
    extra({ ...extraFields, pagination: Type.Optional(pagination), expansion: Type.Optional(expansion) }),
    'one page of matching locations',
    searchExamples,
  ),
};

export const resolveSchema = {
  summary: 'Resolve a location (LEGACY: from codes and city text; FULL: by id)',
  tags,
  querystring: Type.Object(
    {
      catalog,
      location_id: Type.Optional(locationId('FULL only, required there')),
      country: Type.Optional(Type.String({ pattern: COUNTRY, description: 'LEGACY only' })),
      subdivision_code: Type.Optional(Type.String({ pattern: '\\S', description: 'LEGACY only' })),
      subdivision_code_type: subdivisionCodeType,
      city: Type.Optional(Type.String({ pattern: '\\S', description: 'LEGACY only: partial city text, not blank' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'LEGACY only' })),
      locale,
    },
    closed,
  ),
  response: responses(
    perCatalog(
      { ...legacyChain, candidates: Type.Array(legacyLocation, { description: 'the other locations that matched' }) },
      { ...fullChain, candidates: Type.Array(fullLocation, { maxItems: 0, description: 'always empty in FULL' }) },
    ),
    extra({ ...extraFields, pagination: Type.Optional(pagination) }),
    'the resolved location with its chain',
    resolveExamples,
  ),
};

export const lookupSchema = {
  summary: 'Read one location',
  tags,
  params: Type.Object({ location_id: locationId('LEGACY: a registry id; FULL: an active full-catalog id') }),
  querystring: Type.Object({ catalog, locale }, closed),
  response: responses(perCatalog(legacyChain, fullChain), extra({ warnings: extraFields.warnings }), 'the location with its chain', lookupExamples),
};
