import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../platform/db/db.js';
import { connectPostgres } from '../../platform/db/postgres.js';
import { tableChecksum } from '../../platform/projection/checksum.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/**
 * A connection string may carry session settings of its own (`options=-c …`), and a server,
 * database or role may default to another time zone: the service's sessions still read and write
 * times in UTC and ISO style, so a row's text (checksums) and parsed times never change with them.
 */
let database: TestDatabase;
const opened: Db[] = [];

function withOptions(url: string, options: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', options);
  return parsed.toString();
}

function open(url: string): Db {
  const db = connectPostgres(url);
  opened.push(db);
  return db;
}

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  await database.db.exec(`CREATE TABLE stamped (id int PRIMARY KEY, at timestamptz NOT NULL, took interval NOT NULL);
    INSERT INTO stamped VALUES (1, '2026-11-30T23:30:00.123456Z', '1 day 02:03:04'), (2, '2026-03-01T00:00:00Z', '90 minutes')`);
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await database?.drop();
});

describe('session settings a connection string carries', () => {
  it('do not take the time zone, date style or interval style away from UTC and ISO', async () => {
    const db = open(withOptions(database.url, '-c timezone=America/St_Johns -c DateStyle=SQL,DMY -c IntervalStyle=iso_8601'));
    const { rows } = await db.query<{ zone: string; style: string; intervals: string; at: string; took: string; parsed: Date }>(
      `SELECT current_setting('TimeZone') AS zone, current_setting('DateStyle') AS style, current_setting('IntervalStyle') AS intervals,
         at::text AS at, took::text AS took, at AS parsed FROM stamped WHERE id = 1`,
    );
    expect(rows[0]).toMatchObject({ zone: 'UTC', style: expect.stringMatching(/^ISO,/), intervals: 'postgres', at: '2026-11-30 23:30:00.123456+00', took: '1 day 02:03:04' });
    expect(rows[0]!.parsed.toISOString()).toBe('2026-11-30T23:30:00.123Z');
  });

  it('keep the settings the string gives besides those', async () => {
    const db = open(withOptions(database.url, '-c statement_timeout=4321 -c timezone=Asia/Kathmandu'));
    const { rows } = await db.query<{ timeout: string; zone: string }>("SELECT current_setting('statement_timeout') AS timeout, current_setting('TimeZone') AS zone");
    expect(rows[0]).toEqual({ timeout: '4321ms', zone: 'UTC' });
  });

  it('leave a table checksum as it is in a UTC session', async () => {
    const utc = await tableChecksum(open(database.url), 'stamped');
    for (const zone of ['America/St_Johns', 'Pacific/Chatham', 'Asia/Kathmandu']) {
      expect(await tableChecksum(open(withOptions(database.url, `-c timezone=${zone}`)), 'stamped'), zone).toEqual(utc);
    }
  });

  it('leave the listening session working', async () => {
    const db = open(withOptions(database.url, '-c timezone=America/St_Johns'));
    const heard: string[] = [];
    let resolveHeard: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (resolveHeard = resolve));
    const unlisten = await db.listen('session_settings_probe', (payload) => {
      if (payload === '') return;
      heard.push(payload);
      resolveHeard();
    });
    await db.query("SELECT pg_notify('session_settings_probe', 'hello')");
    await arrived;
    await unlisten();
    expect(heard).toEqual(['hello']);
  });
});
