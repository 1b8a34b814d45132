import type { Sql } from '../../../platform/db/db.js';
import { envMismatch, forbidden, unauthorized } from '../../../platform/http/errors.js';
import { lookupApiKey, type KeyLookup } from '../../../projections/accounts/queries.js';

/** The caller of an offer route once its key is accepted. */
export interface OfferRouteCaller {
  key_id: string;
  application_id: string;
  developer_id: string;
}

/**
 * `Authorization: Bearer <key>` → the key; undefined when the header is missing or another scheme.
 * The scheme is case-insensitive and followed by one or more spaces (RFC 9110 §11.1, RFC 6750 §2.1).
 */
export function bearerKey(header: string | undefined): string | undefined {
  const match = /^Bearer +([^\s]+)$/i.exec(header?.trim() ?? '');
  return match?.[1];
}

/**
 * Maps a key lookup to the reference's errors for `POST /v1/offers/instances` and
 * `GET /v1/offers/info`, checked in this order: credential (401), environment (401), account
 * (403 DEVELOPER_SUSPENDED before APPLICATION_NOT_SERVING: a suspended account is the cause
 * whatever its application's status). `testHeader` is `X-SVC-Test: true`, which only the
 * instance route treats as ENV_MISMATCH (the reference names no such rule for offer info).
 */
export function authorizeOfferRoute(
  lookup: KeyLookup | undefined,
  options: { route: 'instances' | 'info'; testHeader: boolean },
): OfferRouteCaller {
  if (!lookup) throw unauthorized('API key missing');
  switch (lookup.kind) {
    case 'unknown':
      throw unauthorized('API key invalid');
    case 'revoked':
      throw unauthorized('API key revoked');
    case 'test':
      throw unauthorized('test keys are not supported on this route; use a Live API Key');
    case 'sandbox':
      throw forbidden('PUBLIC_TEST_SCOPE_DENIED', 'the public sandbox key is limited to the Query route');
    case 'live':
      break;
  }
  if (options.route === 'instances' && options.testHeader) {
    throw envMismatch('a Live API Key cannot be used with X-SVC-Test: true');
  }
  if (lookup.developer_status !== 'active') throw forbidden('DEVELOPER_SUSPENDED', 'the developer account is suspended');
  if (lookup.application_status !== 'live' && lookup.application_status !== 'live_limited') {
    throw forbidden('APPLICATION_NOT_SERVING', `the application cannot currently serve (status ${lookup.application_status})`);
  }
  return { key_id: lookup.key_id, application_id: lookup.application_id, developer_id: lookup.developer_id };
}

/**
 * Whether a request says `X-SVC-Test: true` (any case, spaces around). A header sent twice arrives
 * as one comma-joined value ("false, true"): one `true` among them counts, so an ambiguous request
 * is treated as the test request it may be (a Live key with it is then refused, never served live).
 */
export function saysTest(headers: Record<string, string | string[] | undefined>): boolean {
  const value = headers['x-svc-test'];
  const values = (Array.isArray(value) ? value : value === undefined ? [] : [value]).flatMap((text) => text.split(','));
  return values.some((text) => text.trim().toLowerCase() === 'true');
}

/**
 * The whole check the offer routes call: reads the bearer key and `X-SVC-Test`, looks the key up
 * (with `lookup`, e.g. a cached lookupApiKey) and maps the result. Throws the ApiError (platform/http/errors.ts) to answer
 * with; returns the caller otherwise.
 */
export async function authenticateOfferRequest(
  sql: Sql,
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  route: 'instances' | 'info',
  lookup: (sql: Sql, secret: string, presented: string) => Promise<KeyLookup> = lookupApiKey,
): Promise<OfferRouteCaller> {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const key = bearerKey(header('authorization'));
  const found = key === undefined ? undefined : await lookup(sql, secret, key);
  return authorizeOfferRoute(found, { route, testHeader: saysTest(headers) });
}
