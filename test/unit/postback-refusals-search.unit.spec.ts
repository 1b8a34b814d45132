import { describe, expect, it } from 'vitest';
import { ringBufferLog } from '../../platform/diagnostics/ring-buffer-log.js';
import { searchRefusals, type PostbackRefusal } from '../../services/api/postback-refusals.js';

const PARTNER = '0193b2c4-5d6e-7f80-9a1b-2c3d4e5f6a7b';

function refusal(overrides: Partial<PostbackRefusal>): PostbackRefusal {
  return {
    correlation_id: '0193b2c4-0000-7000-8000-000000000001', partner_id: PARTNER, source_ip: '127.0.0.1', method: 'POST',
    content_type: 'application/json', reason: 'partner_not_found', status: 404, at: '2026-11-01T00:00:00.749Z', excerpt: '{"event_id":"A-1"}',
    ...overrides,
  } as PostbackRefusal;
}

async function found(stored: PostbackRefusal[], filter: Parameters<typeof searchRefusals>[1]) {
  const log = ringBufferLog<PostbackRefusal>(10);
  for (const entry of stored) log.append(entry);
  return (await searchRefusals(log, filter, { limit: 10 })).rows.map((row) => row.value.correlation_id);
}

describe('searching refusals kept before the log', () => {
  it('finds a partner id sent in any case by the lowercase id the page searches for', async () => {
    expect(await found([refusal({ partner_id: PARTNER.toUpperCase() })], { partner_id: PARTNER })).toHaveLength(1);
  });

  it('compares times to the microsecond, as the search bounds are given', async () => {
    const stored = [refusal({})];
    expect(await found(stored, { from: '2026-11-01T00:00:00.749000Z', to: '2026-11-01T00:00:00.749100Z' })).toHaveLength(1);
    expect(await found(stored, { from: '2026-11-01T00:00:00.749001Z' })).toHaveLength(0);
    expect(await found(stored, { to: '2026-11-01T00:00:00.749000Z' })).toHaveLength(0);
  });
});

describe('identity searches of refusals with a kind', () => {
  it('match the value only as that field, in a JSON body, a query string or a form body', async () => {
    const stored = [
      refusal({ correlation_id: 'json-order', excerpt: '{"event_name":"x","order_id":"R-1"}' }),
      refusal({ correlation_id: 'json-event', excerpt: '{"event_id":"R-1"}' }),
      refusal({ correlation_id: 'query-order', excerpt: '?order_id=R-1&event_name=x' }),
      refusal({ correlation_id: 'form-order', excerpt: '?a=1 order_id=R%2D1+two&event_name=x' }),
      refusal({ correlation_id: 'longer', excerpt: '{"order_id":"UPPER-R-1"}' }),
    ];
    expect((await found(stored, { identity: 'R-1', identity_kind: 'order_id' })).sort()).toEqual(['json-order', 'query-order']);
    expect(await found(stored, { identity: 'R-1 two', identity_kind: 'order_id' })).toEqual(['form-order']);
    expect(await found(stored, { identity: 'R-1', identity_kind: 'event_id' })).toEqual(['json-event']);
    // Without a kind, anywhere in what was sent.
    expect(await found(stored, { identity: 'R-1' })).toHaveLength(4);
  });
});

describe('identity searches of refusals without a kind', () => {
  it('also find a value a query string or form body holds only percent-encoded, as any of the three fields', async () => {
    const stored = [
      refusal({ correlation_id: 'query', excerpt: '?event_name=purchase&order_id=ord%20zq%2F1' }),
      refusal({ correlation_id: 'form', excerpt: 'event_name=purchase&partner_txn_id=frm+zq%2F2' }),
      refusal({ correlation_id: 'markup', excerpt: '?event_id=%3Cscript%3Ealert(3)%3C%2Fscript%3E' }),
      refusal({ correlation_id: 'other-field', excerpt: '?event_name=ord%20zq%2F1' }),
    ];
    expect(await found(stored, { identity: 'ord zq/1' })).toEqual(['query']);
    expect(await found(stored, { identity: 'frm zq/2' })).toEqual(['form']);
    expect(await found(stored, { identity: '<script>alert(3)</script>' })).toEqual(['markup']);
  });
});
