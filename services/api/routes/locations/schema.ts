import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import { errorStatuses, successEnvelope } from '../../../../platform/http/envelope-schema.js';
import { withExamples, type ResponseExamples } from '../../../../platform/http/response-examples.js';
import { TAG } from '../../openapi/tags.js';
import { lookupExamples, resolveExamples, searchExamples } from './examples.js';

/**
 * The location routes' parameters and answers (reference: Location object and the three location
 * routes), for the routes' `schema`. The handlers check parameters themselves (each catalog
 * rejects the other's parameters with its own message), so the request schemas only document
 * them; the answers are written as JSON text, so the response schemas are never used to
 * serialize. One schema covers both catalogs: fields marked LEGACY or FULL appear only in that one.
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

export const pathNode = Type.Object(
  {
    location_id: locationId('the node\'s id'),
    name: Type.String(),
    canonical_name: Type.Optional(Type.String({ description: 'FULL only' })),
    country_code: Type.Optional(Type.String({ pattern: COUNTRY, description: 'FULL only' })),
    target_type: Type.Optional(Type.String({ description: 'FULL only' })),
    level: Type.Optional({ ...level, description: 'LEGACY only' }),
    hierarchy_precision: Type.Optional(Type.Integer({ minimum: 1, description: 'FULL only' })),
    legacy_level: Type.Optional({ ...level, description: 'FULL only, when representable' }),
  },
  closed,
);

export const location = Type.Object(
  {
    location_id: locationId('numeric id aligned to the source geo-target criteria id'),
    name: Type.String({ description: 'short display name' }),
    canonical_name: Type.String(),
    country_code: Type.String({ pattern: COUNTRY }),
    target_type: Type.String({ description: 'the raw source target type' }),
    level: Type.Optional({ ...level, description: 'LEGACY only' }),
    source_parent_location_id: Type.Optional(nullableId('FULL only: the raw parent id from the source')),
    parent_location_id: nullableId('LEGACY: the registry parent; FULL: only a verified source-parent edge'),
    path: Type.Array(pathNode, { description: 'root to self' }),
    hierarchy_precision: Type.Optional(Type.Integer({ minimum: 1, description: 'FULL only' })),
    legacy_level: Type.Optional({ ...level, description: 'FULL only, when representable' }),
    chain_status: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['COMPLETE', 'UNRESOLVED_SOURCE_PARENT'], description: 'FULL only' })),
    unresolved_source_parent_location_id: Type.Optional(locationId('FULL only, when chain_status is UNRESOLVED_SOURCE_PARENT')),
    external_codes: Type.Optional(
      Type.Object(
        {
          iso_3166_2: Type.Optional(Type.String()),
          cldr_subdivision: Type.Optional(Type.String()),
          provider_short: Type.Optional(Type.String()),
        },
        { ...closed, description: 'LEGACY only: lookup aliases' },
      ),
    ),
  },
  closed,
);

const catalogFields = {
  catalog: Type.Optional(Type.Literal('FULL', { description: 'FULL only' })),
  catalog_version: Type.Optional(Type.String({ description: 'FULL only' })),
  registry_version: Type.Optional(Type.String({ description: 'LEGACY only' })),
  source_file_date: Type.String({ description: 'the pinned source file date' }),
};
const chainFields = {
  location,
  path: Type.Array(pathNode, { description: 'same as location.path' }),
  location_ids: Type.Array(Type.String({ pattern: LOCATION_ID }), { description: 'self to root' }),
};
const extraFields = {
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'when locale is given: it is reserved' })),
  subdivision_code_type: Type.Optional(Type.String({ description: 'LEGACY: how subdivision_code was matched' })),
};
const extra = (fields: TProperties) => Type.Object(fields, closed);
// README, "Choices where the reference says not shown": the location routes' errors.
const locationErrors = errorStatuses({
  400: { BAD_REQUEST: 'an invalid parameter, or one the catalog does not take; the message names it' },
  404: { NOT_FOUND: 'an id (path, parent_location_id, location_id) or code the catalog does not have' },
  429: { RATE_LIMITED: 'too many requests in a short window; retry after extra.retry_after_seconds' },
  503: {
    CATALOG_NOT_LOADED: 'no geo-target release is loaded yet; the message says how to load one',
    CATALOG_UNAVAILABLE: 'the stored catalog cannot be read right now (its database is down) and this process holds no copy; retry later',
  },
});
const responses = (data: TObject, extraSchema: TObject, description: string, examples: ResponseExamples) =>
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
      q: Type.Optional(Type.String({ description: 'case-insensitive text; FULL requires it unless parent_location_id is given' })),
      parent_location_id: Type.Optional(locationId('direct-child browsing')),
      country: Type.Optional(Type.String({ pattern: COUNTRY })),
      target_types: Type.Optional(Type.String({ description: 'FULL only: comma-separated raw source types' })),
      subdivision_code: Type.Optional(Type.String({ description: 'LEGACY only: ISO 3166-2, CLDR or provider short code' })),
      subdivision_code_type: subdivisionCodeType,
      levels: Type.Optional(Type.String({ description: 'LEGACY only: comma-separated subset of COUNTRY, REGION, CITY' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20 })),
      cursor: Type.Optional(Type.String({ description: 'FULL only: data.next_cursor of the previous page' })),
      locale,
    },
    closed,
  ),
  response: responses(
    Type.Object(
      {
        ...catalogFields,
        locations: Type.Array(location),
        next_cursor: Type.Optional(Type.String({ description: 'FULL only, when another page exists' })),
      },
      closed,
    ),
    extra({ ...extraFields, pagination: Type.Optional(pagination) }),
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
      subdivision_code: Type.Optional(Type.String({ description: 'LEGACY only' })),
      subdivision_code_type: subdivisionCodeType,
      city: Type.Optional(Type.String({ description: 'LEGACY only: partial city text' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'LEGACY only' })),
      locale,
    },
    closed,
  ),
  response: responses(
    Type.Object({ ...catalogFields, ...chainFields, candidates: Type.Array(location, { description: 'LEGACY candidates; empty in FULL' }) }, closed),
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
  response: responses(Type.Object({ ...catalogFields, ...chainFields }, closed), extra({ warnings: extraFields.warnings }), 'the location with its chain', lookupExamples),
};
