import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackLogSearch, searchPostbackLog, type LogPage, type PostbackLogEntry } from '../../projections/ledger/queries.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { logSearches, planScans, sampleOf, seedPostbackLog, type PlanNode, type Sample } from '../support/postback-log-rows.js';

/** Enough rows that the planner prefers an index wherever one serves (at 1,000 it scans the table). */
const ROWS = 100_000;

/**
 * The index each search of the operator page reads, as the README's "Indexes" table says: with
 * one missing or a condition written so none serves, the page scans and sorts the whole log.
 */
const EXPECTED: Record<string, string[]> = {
  'newest (no filter)': ['postback_log_by_time'],
  'older page, mid-table (keyset)': ['postback_log_by_time'],
  'newer page, mid-table (keyset)': ['postback_log_by_time'],
  'correlation id': ['postback_log_pkey', 'postback_log_by_original'],
  'correlation id of a duplicated conversion': ['postback_log_pkey', 'postback_log_by_original'],
  partner: ['postback_log_by_partner_time'],
  'partner, older page': ['postback_log_by_partner_time'],
  'partner + one day': ['postback_log_by_partner_time'],
  'identity, any field': ['postback_log_by_event_id', 'postback_log_by_order_id', 'postback_log_by_partner_txn_id'],
  'identity, order_id': ['postback_log_by_order_id'],
  'click id': ['postback_log_by_click'],
  card: ['postback_log_by_instance'],
  'one day': ['postback_log_by_time'],
  'decision accepted': ['postback_log_by_time'],
  'decision identity_conflict': ['postback_log_by_rare_decision'],
  'decision unmapped + partner': ['postback_log_by_rare_decision'],
  'decision identity_conflict + one day': ['postback_log_by_rare_decision'],
  'nothing matches (unknown identity)': ['postback_log_by_event_id', 'postback_log_by_order_id', 'postback_log_by_partner_txn_id'],
};

describe('the postback log searches on a log of 100,000 rows', () => {
  let database: TestDatabase;
  let client: pg.Client;
  let sample: Sample;

  beforeAll(async () => {
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await seedPostbackLog(client, ROWS);
    sample = await sampleOf(client, ROWS);
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it('has an expectation for every search the page offers', () => {
    expect(logSearches(sample).map(([name]) => name).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.keys(EXPECTED))('%s reads the index the README names, never the whole table', async (name) => {
    const [, filter, page] = logSearches(sample).find(([candidate]) => candidate === name)!;
    const { text, values } = postbackLogSearch(filter, { ...page, limit: 50 });
    const result = await client.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
    const scans = planScans((result.rows[0]['QUERY PLAN'] as [{ Plan: PlanNode }])[0].Plan);
    expect(scans.filter((scan) => scan.startsWith('Seq Scan'))).toEqual([]);
    const indexes = scans.map((scan) => scan.split(' ').pop());
    expect(indexes).toEqual(expect.arrayContaining(EXPECTED[name]!));
  });
});

describe('keyset pages of the postback log when rows share an instant', () => {
  const PARTNER = '0192f3a0-0000-7000-8000-00000000e7e5';
  const INSTANT = '2026-09-01T10:00:00.000000Z';
  let database: TestDatabase;

  /** A copy of a seeded row as the partner's, at `received_at`, with its own id and log position. */
  async function insert(correlationId: string, receivedAt: string, offset: number) {
    await database.db.query(
      `INSERT INTO postback_log
       SELECT $1, 999, $3, $4, identity_kind, identity_key || $1, fingerprint, decision, $1, channel, source_ip, $2::timestamptz,
              event_name, event_id, order_id, partner_txn_id, amount, currency, reported_click_id, reported_tracking_id, reported_instance_id,
              matched_by, offer_id, offer_instance_id, svc_click_id, application_id, environment, goal_event, payout_amount, payout_currency, prev_hash, hash
       FROM postback_log WHERE decision = 'accepted' LIMIT 1`,
      [correlationId, receivedAt, offset, PARTNER],
    );
  }
  const ids = (rows: PostbackLogEntry[]) => rows.map((row) => row.correlation_id);
  const cursorOf = (row: PostbackLogEntry) => ({ received_at: row.received_at, correlation_id: row.correlation_id });
  const page = (extra: Partial<LogPage> = {}) => searchPostbackLog(database.db, { partner_id: PARTNER }, { limit: 2, ...extra });

  // Five rows of one instant, inserted out of order: the tie is broken by correlation id.
  const TIED = ['0192f3a0-0000-7000-8000-0000000000c3', '0192f3a0-0000-7000-8000-0000000000a1', '0192f3a0-0000-7000-8000-0000000000e5', '0192f3a0-0000-7000-8000-0000000000b2', '0192f3a0-0000-7000-8000-0000000000d4'];
  const ORDERED = [...TIED].sort();

  beforeAll(async () => {
    database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await seedPostbackLog(client, 100);
    await client.end();
    for (const [index, id] of TIED.entries()) await insert(id, INSTANT, index);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('lists every tied row once, by correlation id, paging older and then newer', async () => {
    const first = await page();
    const second = await page({ after: cursorOf(first.rows.at(-1)!) });
    const third = await page({ after: cursorOf(second.rows.at(-1)!) });
    expect([ids(first.rows), ids(second.rows), ids(third.rows)]).toEqual([ORDERED.slice(0, 2), ORDERED.slice(2, 4), ORDERED.slice(4)]);
    expect([first.more, second.more, third.more]).toEqual([true, true, false]);
    const back = await page({ before: cursorOf(third.rows[0]!) });
    const front = await page({ before: cursorOf(back.rows[0]!) });
    expect([ids(back.rows), ids(front.rows)]).toEqual([ORDERED.slice(2, 4), ORDERED.slice(0, 2)]);
    expect([back.more, front.more]).toEqual([true, false]);
  });

  it('keeps an older page where it was when a newer row arrives between two pages', async () => {
    const first = await page();
    await insert('0192f3a0-0000-7000-8000-0000000000f6', '2026-09-01T10:00:01.000000Z', 10);
    const second = await page({ after: cursorOf(first.rows.at(-1)!) });
    expect(ids(second.rows)).toEqual(ORDERED.slice(2, 4));
    // The newer row leads the first page now, and the page before the first one finds it.
    expect(ids((await page({ before: cursorOf(first.rows[0]!) })).rows)).toEqual(['0192f3a0-0000-7000-8000-0000000000f6']);
  });
});
