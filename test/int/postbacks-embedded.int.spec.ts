import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { verifyLedger } from '../../projections/ledger/verify.js';
import { buildApp } from '../../services/api/app.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { expectOneOf50Accepted } from '../support/postback-bursts.js';
import { postbackWorld, postPostback } from '../support/postback-world.js';
import { dataDirWithCluster } from '../support/embedded-cluster.js';
import { runCli } from '../support/cli.js';

/**
 * The postback route on the embedded default (PGlite holds the log and the ledger, no Redis): the
 * same decisions, exactly once, as on Kafka or Postgres.
 */
describe('postbacks on the embedded default', () => {
  const dataDir = dataDirWithCluster('offer-ledger-postbacks-');
  let runtime: Runtime;
  let app: FastifyInstance;
  let projectors: RunningProjectors;
  /** The last test stops the service itself, as an operator does before running a command on DATA_DIR. */
  let stopped = false;
  let world: Awaited<ReturnType<typeof postbackWorld>>;
  let n = 0;
  const id = (prefix: string) => `${prefix}-embedded-${(n += 1)}`;
  const post = (body: unknown) => postPostback(app, world.partner, body);
  const conversions = async (eventId: string) =>
    (await runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM conversions WHERE event_id = $1', [eventId])).rows[0]!.n;

  beforeAll(async () => {
    runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    app = await buildApp({ runtime });
    projectors = await startProjectors(runtime);
    world = await postbackWorld(runtime);
  }, 120_000);
  afterAll(async () => {
    if (!stopped) {
      await projectors?.stop();
      await app?.close();
      await runtime?.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('accepts a conversion once: the same postback is already_recorded, a changed one identity_conflict', async () => {
    const card = await world.serve(world.cpaOffer);
    const body = { event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id('once') };
    const first = await post(body);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toMatchObject({ result: 'accepted', attribution: { matched_by: 'offer_instance_id', offer_id: world.cpaOffer } });
    const again = await post(body);
    expect(again.json().data).toMatchObject({ result: 'already_recorded', correlation_id: first.json().data.correlation_id });
    const changed = await post({ ...body, amount: '5.00', currency: 'EUR' });
    expect(changed.statusCode).toBe(409);
    expect(changed.json().extra).toMatchObject({ reason: 'identity_conflict', event_logged: true });
    expect(await conversions(body.event_id)).toBe(1);
  });

  it('50 concurrent copies of one postback: one accepted, 49 already_recorded, one ledger row', async () => {
    const card = await world.serve(world.cpaOffer);
    const body = { event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id('burst') };
    await expectOneOf50Accepted(post, body);
    expect(await conversions(body.event_id)).toBe(1);
  });

  it('without a decision in time: 503 postback_intake_unavailable, logged; the retry gets already_recorded; the chain verifies', async () => {
    const card = await world.serve(world.cpaOffer);
    const body = { event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id('deferred') };
    const impatient = await buildApp({ runtime: { ...runtime, config: { ...runtime.config, postbackDecisionTimeoutMs: 10 } } });
    await projectors.stop();
    let deferred;
    try {
      deferred = await postPostback(impatient, world.partner, body);
    } finally {
      projectors = await startProjectors(runtime);
      await impatient.close();
    }
    expect(deferred.statusCode).toBe(503);
    expect(deferred.json().extra).toMatchObject({ result: 'deferred', reason: 'postback_intake_unavailable', retryable: true, event_logged: true });
    const retry = await post(body);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().data).toMatchObject({ result: 'already_recorded', correlation_id: deferred.json().extra.correlation_id });
    expect(await conversions(body.event_id)).toBe(1);
    expect((await verifyLedger(runtime.db)).breaks).toEqual([]);
  });

  it('npm run ledger:verify checks the ledger in DATA_DIR once the service has stopped: exit 0, then 1 naming a changed decision', async () => {
    stopped = true;
    await projectors.stop();
    await app.close();
    await runtime.close();
    const verify = () => runCli('projections/ledger/verify-cli.ts', [], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const clean = await verify();
    expect(clean.status, clean.stderr).toBe(0);
    expect(clean.stdout).toMatch(/^ledger verifies: \d+ decisions in \d+ partition\(s\)$/m);

    const owner = await openRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    let changed: string;
    try {
      const { rows } = await owner.db.query<{ correlation_id: string }>("SELECT correlation_id FROM postback_log WHERE decision = 'accepted' ORDER BY log_partition, log_offset LIMIT 1");
      changed = rows[0]!.correlation_id;
      await owner.db.query("UPDATE postback_log SET order_id = 'EVIL' WHERE correlation_id = $1", [changed]);
    } finally {
      await owner.close();
    }
    const broken = await verify();
    expect(broken.status, broken.stderr).toBe(1);
    expect(broken.stdout).toContain(`(correlation id ${changed})`);
  });
});
