import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment } from '../support/app.js';
import { ownLines, runCli } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/** `npm run seed` as an operator runs it: once per database (it appends without the commands' checks). */
let database: TestDatabase;
let env: Record<string, string>;
beforeAll(async () => {
  database = await createTestDatabase();
  env = testEnvironment(database, `t${randomBytes(4).toString('hex')}.`, { eventLog: 'sql' });
});
afterAll(async () => database?.drop());

const developerEmails = async () =>
  (await database.db.query<{ email: string; copies: number }>('SELECT email, count(*)::int AS copies FROM account_developers GROUP BY email ORDER BY email')).rows;

describe('npm run seed', () => {
  it('seeds a database once and projects it; a second run exits 2 and registers no email twice', async () => {
    const first = await runCli('services/admin/seed/main.ts', ['--offers', '20', '--serves', '400'], env, 180_000);
    expect(first.status, first.stderr).toBe(0);
    // Off a terminal the progress is a line per step as it ends (and one every 5 s meanwhile).
    expect(first.stderr).toMatch(/^accounts: (\d+) of \1 events, done$/m);
    expect(first.stderr).toMatch(/^serves: 400 of 400 events, done$/m);
    // --serves 400: that many served cards across many applications, and some clicks on them, projected.
    const { rows: [serving] } = await database.db.query<{ serves: number; applications: number; clicks: number; clicked_serves: number }>(
      `SELECT (SELECT count(*)::int FROM served_instances) AS serves,
              (SELECT count(DISTINCT application_id)::int FROM served_instances) AS applications,
              (SELECT count(*)::int FROM clicks) AS clicks,
              (SELECT count(*)::int FROM clicks c JOIN served_instances s USING (offer_instance_id)) AS clicked_serves`,
    );
    expect(serving!.serves).toBe(400);
    expect(serving!.applications).toBeGreaterThan(1);
    expect(serving!.clicks).toBeGreaterThan(0);
    expect(serving!.clicked_serves).toBe(serving!.clicks);
    // Nothing seeded lies in the future (postbacks come up to a day after their click).
    const { rows: [times] } = await database.db.query<{ all: number; future: number }>(
      'SELECT count(*)::int AS all, (count(*) FILTER (WHERE received_at > now()))::int AS future FROM postback_log',
    );
    expect(times!.all).toBeGreaterThan(0);
    expect(times!.future).toBe(0);
    // Money as the intake and the offer commands write it: reported amounts in canonical form
    // (279.5, not 279.50), and no cpa price finer than its currency pays (35 JPY, not 34.93).
    const { rows: [money] } = await database.db.query<{ reported: number; padded: number; yen: number; fractional_yen: number }>(
      `SELECT (SELECT count(*)::int FROM postback_log WHERE amount IS NOT NULL) AS reported,
              (SELECT count(*)::int FROM postback_log WHERE amount::text ~ '[.]([0-9]*0)?$') AS padded,
              (SELECT count(*)::int FROM offer_goals WHERE currency = 'JPY') AS yen,
              (SELECT count(*)::int FROM offer_goals WHERE currency = 'JPY' AND amount::text LIKE '%.%') AS fractional_yen`,
    );
    expect(money!.reported).toBeGreaterThan(0);
    expect(money!.yen).toBeGreaterThan(0);
    expect([money!.padded, money!.fractional_yen]).toEqual([0, 0]);
    const seeded = await developerEmails();
    expect(seeded.map((row) => row.email)).toContain('dev0@house.example');
    expect(seeded.every((row) => row.copies === 1)).toBe(true);

    const second = await runCli('services/admin/seed/main.ts', ['--offers', '3', '--no-progress'], env, 180_000);
    expect(second.status).toBe(2);
    expect(ownLines(second.stderr)).toEqual(['error: this database already holds a seeded data set (developer dev0@house.example); seed a fresh database']);
    expect(await developerEmails()).toEqual(seeded);
  }, 400_000);

  it('two runs started together into one Postgres database on Kafka: one seeds it, the other exits 2, no email registered twice', async () => {
    const together = await createTestDatabase();
    try {
      // On Kafka (where two unserialised runs were seen to both seed: each checked before the other appended).
      const togetherEnv = testEnvironment(together, `t${randomBytes(4).toString('hex')}.`, { eventLog: 'kafka' });
      const runs = await Promise.all([1, 2].map(() => runCli('services/admin/seed/main.ts', ['--offers', '5', '--serves', '20', '--no-progress'], togetherEnv, 180_000)));
      expect(runs.map((run) => run.status).sort(), runs.map((run) => run.stderr).join('\n')).toEqual([0, 2]);
      // Refused while the other runs, or (had it started that much later) once the other finished.
      expect(ownLines(runs.find((run) => run.status === 2)!.stderr)).toEqual([
        expect.stringMatching(/^error: (another npm run seed is seeding this database now \(a database is seeded once\)|this database already holds a seeded data set \(developer dev0@house\.example\)); seed a fresh database with a TOPIC_PREFIX of its own$/),
      ]);
      const { rows } = await together.db.query<{ copies: number }>('SELECT count(*)::int AS copies FROM account_developers GROUP BY email ORDER BY 1 DESC LIMIT 1');
      expect(rows).toEqual([{ copies: 1 }]);
    } finally {
      await together.drop();
    }
  }, 400_000);

  it('a second run into a database whose seeded events are not projected yet (a seed killed while appending) exits 2 too', async () => {
    const unprojected = await createTestDatabase();
    try {
      const unprojectedEnv = testEnvironment(unprojected, `t${randomBytes(4).toString('hex')}.`, { eventLog: 'sql' });
      // --no-project leaves the log as a killed seed does: events no read model has applied.
      const first = await runCli('services/admin/seed/main.ts', ['--offers', '5', '--serves', '20', '--no-progress', '--no-project'], unprojectedEnv, 180_000);
      expect(first.status, first.stderr).toBe(0);
      const logged = async () => (await unprojected.db.query<{ events: number }>('SELECT count(*)::int AS events FROM event_log')).rows[0]!.events;
      const before = await logged();
      const second = await runCli('services/admin/seed/main.ts', ['--offers', '5', '--serves', '20', '--no-progress'], unprojectedEnv, 180_000);
      expect(second.status, second.stderr).toBe(2);
      expect(ownLines(second.stderr)).toEqual(['error: this database already holds a seeded data set (developer dev0@house.example); seed a fresh database']);
      // Nothing appended by the second run, and every developer registered once.
      expect(await logged()).toBe(before);
      const { rows } = await unprojected.db.query<{ copies: number }>('SELECT count(*)::int AS copies FROM account_developers GROUP BY email ORDER BY 1 DESC LIMIT 1');
      expect(rows).toEqual([{ copies: 1 }]);
    } finally {
      await unprojected.drop();
    }
  }, 400_000);
});
