import { describe, expect, it } from 'vitest';
import { ApiError } from '../../platform/http/errors.js';
import type { KeyLookup } from '../../projections/accounts/queries.js';
import { authorizeOfferRoute, bearerKey, saysTest } from '../../services/api/auth/offer-route-access.js';

const live = (overrides: Partial<Extract<KeyLookup, { application_id: string }>> = {}): KeyLookup => ({
  kind: 'live',
  key_id: 'k',
  application_id: 'a',
  application_status: 'live',
  developer_id: 'd',
  developer_status: 'active',
  ...overrides,
});

function rejection(lookup: KeyLookup | undefined, route: 'instances' | 'info' = 'instances', testHeader = false) {
  try {
    authorizeOfferRoute(lookup, { route, testHeader });
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const { statusCode, code } = error as ApiError;
    return `${statusCode} ${code}`;
  }
  return 'accepted';
}

describe('offer route access from a key lookup', () => {
  it.each([
    ['no key', undefined, '401 UNAUTHORIZED'],
    ['an unknown key', { kind: 'unknown' } as const, '401 UNAUTHORIZED'],
    ['a revoked key', { kind: 'revoked', key_id: 'k' } as const, '401 UNAUTHORIZED'],
    ['a test key', { ...live(), kind: 'test' } as KeyLookup, '401 UNAUTHORIZED'],
    ['the sandbox key', { kind: 'sandbox', key_id: 'k' } as const, '403 PUBLIC_TEST_SCOPE_DENIED'],
    ['a live key of a live app', live(), 'accepted'],
    ['a live key of a live_limited app', live({ application_status: 'live_limited' }), 'accepted'],
    ['a live key of a paused app', live({ application_status: 'paused' }), '403 APPLICATION_NOT_SERVING'],
    ['a live key of a suspended app', live({ application_status: 'suspended' }), '403 APPLICATION_NOT_SERVING'],
    ['a live key of a suspended developer', live({ developer_status: 'suspended' }), '403 DEVELOPER_SUSPENDED'],
    ['a suspended developer with a paused app', live({ developer_status: 'suspended', application_status: 'paused' }), '403 DEVELOPER_SUSPENDED'],
  ])('%s → %s on both routes', (_what, lookup, expected) => {
    expect(rejection(lookup as KeyLookup | undefined, 'instances')).toBe(expected);
    expect(rejection(lookup as KeyLookup | undefined, 'info')).toBe(expected);
  });

  it('a live key with X-SVC-Test: true is ENV_MISMATCH on the instance route only', () => {
    expect(rejection(live(), 'instances', true)).toBe('401 ENV_MISMATCH');
    expect(rejection(live(), 'info', true)).toBe('accepted');
    // Credential problems come first.
    expect(rejection({ ...live(), kind: 'test' } as KeyLookup, 'instances', true)).toBe('401 UNAUTHORIZED');
    expect(rejection({ kind: 'sandbox', key_id: 'k' }, 'instances', true)).toBe('403 PUBLIC_TEST_SCOPE_DENIED');
  });

  it('returns who is calling', () => {
    expect(authorizeOfferRoute(live(), { route: 'info', testHeader: false })).toEqual({ key_id: 'k', application_id: 'a', developer_id: 'd' });
  });

  it('never puts the key in an error message', () => {
    for (const lookup of [{ kind: 'unknown' } as const, { kind: 'revoked', key_id: 'k' } as const]) {
      expect(() => authorizeOfferRoute(lookup, { route: 'info', testHeader: false })).toThrow(/^API key (invalid|revoked)$/);
    }
  });
});

describe('bearer key from the Authorization header', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['Basic abc', undefined],
    ['Bearer', undefined],
    ['Bearer a b', undefined],
    ['Bearer svc_live_abc', 'svc_live_abc'],
    [' Bearer svc_live_abc ', 'svc_live_abc'],
    ['bearer svc_live_abc', 'svc_live_abc'],
    ['BEARER svc_live_abc', 'svc_live_abc'],
    ['Bearer   svc_live_abc', 'svc_live_abc'],
    ['Bearer\tsvc_live_abc', undefined],
    ['Bearersvc_live_abc', undefined],
  ])('%j → %j', (header, expected) => {
    expect(bearerKey(header)).toBe(expected);
  });
});

describe('X-SVC-Test', () => {
  it.each([
    [{ 'x-svc-test': 'true' }, true],
    [{ 'x-svc-test': ' TRUE ' }, true],
    [{ 'x-svc-test': 'false, true' }, true],
    [{ 'x-svc-test': ['false', 'true'] }, true],
    [{ 'x-svc-test': 'false' }, false],
    [{ 'x-svc-test': '1' }, false],
    [{ 'x-svc-test': '' }, false],
    [{}, false],
  ] as [Record<string, string | string[]>, boolean][])('%j says test: %s', (headers, expected) => {
    expect(saysTest(headers)).toBe(expected);
  });
});
