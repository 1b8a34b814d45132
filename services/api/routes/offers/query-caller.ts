import { ApiError, envMismatch, forbidden, unauthorized } from '../../../../platform/http/errors.js';
import type { Runtime } from '../../../../platform/runtime.js';
import type { ApplicationStatus, DeveloperStatus, ServeEnvironment } from '../../../../schemas/generated/events.js';
import { bearerKey, saysTest } from '../../auth/offer-route-access.js';
import type { ReadCaches } from '../../read-cache.js';
import type { KeyLookup } from '../../../../projections/accounts/queries.js';

/** Who a Query serves: the cards belong to `application_id`. */
export interface QueryCaller {
  application_id: string;
  placement_id: string | null;
  environment: ServeEnvironment;
  anonymous: boolean;
}

type Headers = Record<string, string | string[] | undefined>;


function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The reference's account rules (Authentication 4): a suspended developer first, then the application's status. */
function checkAccount(developer: DeveloperStatus, application: ApplicationStatus) {
  if (developer !== 'active') throw forbidden('DEVELOPER_SUSPENDED', 'the developer account is suspended');
  if (application !== 'live' && application !== 'live_limited') {
    throw forbidden('APPLICATION_NOT_SERVING', `the application cannot currently serve (status ${application})`);
  }
}

/** The default placement's application, for anonymous and sandbox serves; undefined when none can be used. */
async function defaultApplication(runtime: Runtime, caches: ReadCaches) {
  const found = await caches.defaultPlacement(runtime.db);
  if (!found || found.placement_status !== 'active' || !found.application_status || !found.developer_status) return undefined;
  return { ...found, application_status: found.application_status, developer_status: found.developer_status };
}

/** `placement_id` must name an active placement of the serving application. */
async function checkPlacement(runtime: Runtime, caches: ReadCaches, applicationId: string, placementId: string): Promise<string> {
  const placement = (await caches.placements(runtime.db, [placementId])).get(placementId);
  // Another application's placement is answered like an unknown one: its existence is not the caller's business.
  if (!placement || placement.application_id !== applicationId) {
    throw new ApiError(404, 'NOT_FOUND', `placement_id ${placementId} is not a placement of the calling application`, { field: 'placement_id' });
  }
  if (placement.status !== 'active') {
    throw new ApiError(403, 'PLACEMENT_INACTIVE', `placement_id ${placementId} is inactive; activate it or send another placement`, { field: 'placement_id' });
  }
  return placementId;
}

/**
 * The credential rules of `POST /v1/offers/query`, checked in this order: credential and
 * environment (401), account (403), placement (404, 403).
 *
 * - Without `placement_id` a Query is served anonymously, through the default placement to the
 *   default application (reference, instance route rule 3: "its instances belong to the default
 *   application and return not_found for any other key"), whether or not it carries a key; when
 *   anonymous Query is unavailable (ANONYMOUS_QUERY=off, or no active default placement) it is
 *   401 UNAUTHORIZED. A key sent along is still checked (unknown, revoked, wrong environment,
 *   its account) and sets the environment; its application owns none of these cards.
 * - With `placement_id`: a key is required (401 without one) and the placement must be an
 *   active placement of the key's application; the cards are that application's.
 * - Live key: live serve; with `X-SVC-Test: true` 401 ENV_MISMATCH.
 * - Test key: test serve, only with `X-SVC-Test: true`; without it 401 ENV_MISMATCH (a test
 *   credential in a live request is an environment mistake, not a bad key).
 * - The shared sandbox key: sandbox serve for the default application; `X-SVC-Test` does not
 *   matter. Without `placement_id` it is the anonymous Query of rule 3 in the sandbox (401 when
 *   anonymous Query is unavailable, as for any key); with the default placement's id it serves
 *   whatever ANONYMOUS_QUERY says (403 APPLICATION_NOT_SERVING when no default is designated).
 * - No key: live; `X-SVC-Test: true` without a key is 401 ENV_MISMATCH.
 * - Unknown, revoked or malformed key: 401 UNAUTHORIZED.
 * Placements come through `caches`, emptied by every accounts commit; keys through `lookupKey`
 * (the same caches, and the check the rate limit already made of this request's key).
 */
export async function resolveQueryCaller(
  runtime: Runtime,
  caches: ReadCaches,
  headers: Headers,
  placementId: string | undefined,
  lookupKey: (key: string) => Promise<KeyLookup>,
): Promise<QueryCaller> {
  const authorization = header(headers, 'authorization');
  const testHeader = saysTest(headers);

  if (authorization === undefined) {
    if (placementId !== undefined) throw unauthorized('API key missing: a Query with placement_id needs its application\'s API key');
    if (testHeader) throw envMismatch('X-SVC-Test: true needs a Test Key');
    return anonymousCaller(runtime, caches, 'live', 'API key missing: ');
  }

  const key = bearerKey(authorization);
  if (key === undefined) throw unauthorized('Authorization must be "Bearer <API key>"');
  const lookup = await lookupKey(key);
  switch (lookup.kind) {
    case 'unknown':
      throw unauthorized('API key invalid');
    case 'revoked':
      throw unauthorized('API key revoked');
    case 'sandbox': {
      if (placementId === undefined) return anonymousCaller(runtime, caches, 'sandbox', 'without placement_id a Query is served anonymously, but ');
      const fallback = await defaultApplication(runtime, caches);
      if (!fallback) throw forbidden('APPLICATION_NOT_SERVING', 'the sandbox has no default application to serve through');
      checkAccount(fallback.developer_status, fallback.application_status);
      return { application_id: fallback.application_id, placement_id: await checkPlacement(runtime, caches, fallback.application_id, placementId), environment: 'sandbox', anonymous: false };
    }
    case 'live':
    case 'test': {
      if (lookup.kind === 'live' && testHeader) throw envMismatch('a Live API Key cannot be used with X-SVC-Test: true');
      if (lookup.kind === 'test' && !testHeader) throw envMismatch('a Test Key serves only test requests: send X-SVC-Test: true');
      checkAccount(lookup.developer_status, lookup.application_status);
      if (placementId === undefined) return anonymousCaller(runtime, caches, lookup.kind, 'without placement_id a Query is served anonymously, but ');
      return { application_id: lookup.application_id, placement_id: await checkPlacement(runtime, caches, lookup.application_id, placementId), environment: lookup.kind, anonymous: false };
    }
  }
}

/** Through the default placement to the default application; 401 when anonymous Query is unavailable. */
async function anonymousCaller(runtime: Runtime, caches: ReadCaches, environment: ServeEnvironment, why: string): Promise<QueryCaller> {
  if (runtime.config.anonymousQuery === 'off') throw unauthorized(`${why}anonymous Query is off on this service; send placement_id with your application's key`);
  const fallback = await defaultApplication(runtime, caches);
  if (!fallback) throw unauthorized(`${why}anonymous Query is not available (no active default placement is designated); send placement_id with your application's key, or designate a default placement (admin command default-placement:designate)`);
  checkAccount(fallback.developer_status, fallback.application_status);
  return { application_id: fallback.application_id, placement_id: fallback.placement_id, environment, anonymous: true };
}
