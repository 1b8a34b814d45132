import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackReceivedEvent } from '../../commands/postbacks/receive.js';
import { postbackLogKey } from '../../commands/postbacks/log-key.js';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { applyBatch } from '../../platform/projection/runner.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { verifyLedger } from '../../projections/ledger/verify.js';
import { EventType } from '../../schemas/generated/events.js';
import { exportReadModel } from '../../services/export/export-read-model.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { readExport } from '../support/export-files.js';

const PARTNER = '0192f3a0-0000-7000-8000-00000000f0c1';
// Case, punctuation, digits and accents: where a language's collation and byte order disagree.
const EVENT_IDS = ['Zeta', 'alpha', 'Beta', '_under', 'éclair', 'eclair', '10', '9', 'a-b', 'ab'];

function received(eventId: string) {
  return postbackReceivedEvent(
    { partner_id: PARTNER, source_ip: '127.0.0.1', channel: 'current', correlation_id: uuidv7(), fields: { event_name: 'purchase', event_id: eventId } },
    { matched_by: 'offer_instance_id', offer_id: 'offer', offer_instance_id: 'instance', svc_click_id: null, application_id: 'app', environment: 'live' },
    { goal_event: 'install', payout_amount: '2.50', payout_currency: 'USD' },
    new Date('2026-11-27T08:00:00Z'),
  );
}

describe('the conversions export on a database whose default collation is a language\'s', () => {
  let database: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    database = await createTestDatabase({ icuLocale: 'en-US' });
    dir = mkdtempSync(join(tmpdir(), 'ledger-order-'));
    const values = EVENT_IDS.map(received);
    await applyBatch(database.db, ledgerProjection, {
      topic: 'postbacks',
      partition: 0,
      events: values.map((value, offset): LoggedEvent => ({
        topic: 'postbacks', partition: 0, offset: String(offset), key: postbackLogKey(value),
        type: EventType.PostbackReceived, value: { ...value }, schemaId: 1, timestamp: new Date(0),
      })),
    });
  });
  afterAll(async () => {
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists conversions by (partner, identity) in byte order, as on any other database', async () => {
    const out = join(dir, 'conversions.ndjson');
    await exportReadModel(database.db, { readModel: 'conversions', format: 'ndjson', out });
    const { rows } = await readExport(out, 'ndjson');
    const keys = rows.map((row) => row.identity_key as string);
    const byteOrder = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(keys).toHaveLength(EVENT_IDS.length);
    expect(keys).toEqual(byteOrder);
  });

  it('still verifies: the ledger\'s two tables compare their identities without a collation conflict', async () => {
    const report = await verifyLedger(database.db);
    expect(report.breaks).toEqual([]);
  });
});
