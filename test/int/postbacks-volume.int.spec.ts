import fc from 'fast-check';
import { v4 as uuidv4 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../projections/ledger/verify.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { validFields } from '../support/postback-arbitraries.js';
import { PROTOCOL, postbackWorld, postPostback } from '../support/postback-world.js';

// Volume on the real stack: many generated bad requests change nothing, and many distinct
// postbacks from concurrent clients all land in the ledger once.
let t: TestRuntime & { app: Awaited<ReturnType<typeof createTestApp>>['app'] };
let projectors: RunningProjectors;
let world: Awaited<ReturnType<typeof postbackWorld>>;

beforeAll(async () => {
  t = await createTestApp({ eventLog: 'kafka' });
  projectors = await startProjectors(t.runtime);
  world = await postbackWorld(t.runtime);
});
afterAll(async () => {
  await projectors?.stop();
  await t?.close();
});

const logEnd = async () => (await t.runtime.eventLog.endOffsets('postbacks')).map((end) => `${end.partition}:${end.offset}`).sort();

/** One request that must be refused: a bad header, a bad body, or a valid body naming nothing that exists. */
type BadRequest = { partner: string; url?: string; headers: Record<string, string>; payload: string };

function badRequests(partner: string): fc.Arbitrary<BadRequest> {
  // Attribution ids that exist nowhere and are not just-minted UUIDv7s (those are a retryable 503 by design).
  const unknownFields = validFields.map((fields) => ({
    ...fields,
    ...(fields.svc_click_id ? { svc_click_id: uuidv4() } : {}),
    ...(fields.offer_instance_id ? { offer_instance_id: uuidv4() } : {}),
    ...(fields.svc_tracking_id ? { svc_tracking_id: `st_unknown${fields.svc_tracking_id.length}` } : {}),
  }));
  const body = unknownFields.map((fields) => JSON.stringify(fields));
  const mutated = fc.tuple(unknownFields, fc.constantFrom('extra', 'amount', 'currency', 'event_name', 'offer_instance_id', 'event_id'), fc.jsonValue()).map(([fields, key, value]) => {
    const changed: Record<string, unknown> = { ...fields, [key]: value };
    if (key === 'extra') return JSON.stringify(changed);
    // A value that could still be valid for the key is made invalid by wrapping it.
    return JSON.stringify({ ...changed, [key]: typeof value === 'string' ? [value] : value });
  });
  return fc.oneof(
    // Bad bodies with the right headers.
    fc.oneof(fc.string(), fc.jsonValue().map((value) => JSON.stringify(value)), mutated, fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('latin1')))
      .map((payload) => ({ partner, headers: PROTOCOL, payload })),
    // Good bodies, bad headers or query strings.
    fc.tuple(body, fc.constantFrom<Record<string, string>>(
      { 'content-type': 'application/json' },
      { ...PROTOCOL, 'svc-protocol-version': '2.0' },
      { ...PROTOCOL, 'content-type': 'text/plain' },
      { ...PROTOCOL, 'x-partner-signature': 'sig' },
    )).map(([payload, headers]) => ({ partner, headers, payload })),
    body.map((payload) => ({ partner, url: `/v1/postback/${partner}?event_id=1`, headers: PROTOCOL, payload })),
    // Good shape, but no such partner or no such card. (A path segment like `..` would be another
    // route altogether, so partner ids are drawn from characters a path keeps as they are.)
    fc.tuple(fc.oneof(fc.uuid({ version: 4 }), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/)), body).map(([other, payload]) => ({ partner: other, headers: PROTOCOL, payload })),
    body.map((payload) => ({ partner, headers: PROTOCOL, payload })),
  );
}

describe('postback volume', () => {
  it('10,000 generated bad requests: every one a 4xx in the postback envelope, nothing appended', async () => {
    const before = await logEnd();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(badRequests(world.partner), async (request) => {
        const response = await t.app.inject({ method: 'POST', url: request.url ?? `/v1/postback/${request.partner}`, headers: request.headers, payload: request.payload });
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        expect(response.statusCode, `${request.payload} → ${response.body}`).toBeGreaterThanOrEqual(400);
        expect(response.statusCode, response.body).toBeLessThan(500);
        const body = response.json();
        expect(body.data).toEqual({});
        expect(body.extra).toMatchObject({ result: 'rejected', retryable: false, event_logged: false });
      }),
      { numRuns: 10_000 },
    );
    expect(await logEnd()).toEqual(before);
    // The generator reached the body checks, the header checks, the partner check and attribution.
    expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([400, 404, 415]));
  }, 240_000);

  it('10,000 distinct postbacks from 20 concurrent clients: 10,000 ledger rows, each accepted once', async () => {
    const cards = await Promise.all(Array.from({ length: 20 }, () => world.serve(world.cpaOffer)));
    const TOTAL = 10_000;
    let next = 0;
    const results = new Map<string, number>();
    const correlationIds = new Set<string>();
    async function client(index: number) {
      while (next < TOTAL) {
        const n = (next += 1);
        const response = await postPostback(t.app, world.partner, { event_name: 'purchase', offer_instance_id: cards[index]!.offer_instance_id, event_id: `volume-${n}` });
        const result = response.statusCode === 200 ? response.json().data.result : `${response.statusCode}`;
        results.set(result, (results.get(result) ?? 0) + 1);
        if (response.statusCode === 200) correlationIds.add(response.json().data.correlation_id);
      }
    }
    await Promise.all(Array.from({ length: 20 }, (_, index) => client(index)));
    expect(Object.fromEntries(results)).toEqual({ accepted: TOTAL });
    expect(correlationIds.size).toBe(TOTAL);
    const { rows } = await t.runtime.db.query<{ n: string; distinct_ids: string }>(
      "SELECT count(*) AS n, count(DISTINCT event_id) AS distinct_ids FROM conversions WHERE event_id LIKE 'volume-%'",
    );
    expect(rows[0]).toEqual({ n: String(TOTAL), distinct_ids: String(TOTAL) });
    // And the ledger's hash chains hold every one of them.
    const report = await verifyLedger(t.runtime.db);
    expect([report.breaks, report.conversionsOffChain]).toEqual([[], []]);
    expect(report.partitions.reduce((sum, partition) => sum + partition.decisions, 0)).toBeGreaterThanOrEqual(TOTAL);
    // Ten thousand round trips through the log and the ledger projector: more than the default
    // per-test allowance on a busy two-core machine.
  }, 240_000);
});
