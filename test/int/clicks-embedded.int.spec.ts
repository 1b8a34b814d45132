import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../commands/command.js';
import { registerLink } from '../../commands/offers/link-register.js';
import { upsertOffer } from '../../commands/offers/upsert.js';
import { configurePartner } from '../../commands/partners/configure.js';
import { runCommand } from '../../commands/run.js';
import { loadConfig } from '../../platform/config/config.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { clicksProjection } from '../../projections/clicks/projection.js';
import { findClick } from '../../projections/clicks/queries.js';
import { EventType } from '../../schemas/generated/events.js';
import { buildApp } from '../../services/api/app.js';
import { projections, startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { readTopic } from '../support/read-topic.js';
import { replayProjection } from '../support/replay.js';
import { appendServe } from '../support/serves.js';
import { tableChecksum } from '../../platform/projection/checksum.js';
import { dataDirWithCluster } from '../support/embedded-cluster.js';

// The embedded default (PGlite in DATA_DIR, its own event log) with the default LINK_BASE,
// http://127.0.0.1:8080/l: the link origin's routes are under /l.
let dataDir: string;
let runtime: Runtime;
let app: FastifyInstance;
let projectors: RunningProjectors;
let offerId: string;
const APP = uuidv7();

const run = (command: Command, input: unknown) => runCommand(command, input, { runtime, now: () => new Date() });

beforeAll(async () => {
  dataDir = dataDirWithCluster('offer-ledger-clicks-');
  runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir }));
  app = await buildApp({ runtime });
  projectors = await startProjectors(runtime);
  const partnerId = String((await run(configurePartner, { name: 'Acme' })).partner_id);
  await awaitCaughtUp(runtime, projections, 30_000);
  offerId = String((await run(upsertOffer, { partner_id: partnerId, kind: 'local', status: 'active' })).offer_id);
  await awaitCaughtUp(runtime, projections, 30_000);
});

afterAll(async () => {
  await projectors?.stop();
  await app?.close();
  await runtime?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('clicks on the embedded default', () => {
  it('a card link under /l: 302 with the click id, LinkClicked in the embedded log, the clicks row', async () => {
    expect(runtime.eventLog.kind).toBe('embedded');
    const serve = await appendServe(runtime, { offer_id: offerId, application_id: APP, destination_url: 'https://shop.example/p?c={svc_click_id}&s={sub_id4}' });
    const response = await app.inject({ method: 'GET', url: `/l/${serve.link_code}?sub_id4=k%2F1` });
    expect(response.statusCode, response.body).toBe(302);
    expect(response.headers['cache-control']).toBe('no-store');
    const clickId = new URL(response.headers.location as string).searchParams.get('c')!;
    expect(response.headers.location).toBe(`https://shop.example/p?c=${clickId}&s=k%2F1`);

    const events = await readTopic(runtime.eventLog, 'clicks', (all) => all.some((event) => event.key === clickId));
    expect(events.find((event) => event.key === clickId)).toMatchObject({
      type: EventType.LinkClicked,
      value: { svc_click_id: clickId, link_code: serve.link_code, offer_instance_id: serve.offer_instance_id, sub_id4: 'k/1', environment: 'live' },
    });
    await awaitCaughtUp(runtime, [clicksProjection], 30_000);
    expect(await findClick(runtime.db, clickId)).toMatchObject({ svc_click_id: clickId, application_id: APP, offer_id: offerId, redirect_url: response.headers.location });
  });

  it('a registered static link, and an unknown code (404 in the envelope)', async () => {
    await run(registerLink, { offer_id: offerId, shape: 'static_path', code: 'st_wall', target_url: 'https://partner.example/wall#x' });
    await awaitCaughtUp(runtime, projections, 30_000);
    const response = await app.inject({ method: 'GET', url: '/l/static/st_wall' });
    expect(response.statusCode, response.body).toBe(302);
    expect(response.headers.location).toMatch(/^https:\/\/partner\.example\/wall\?svc_click_id=[0-9a-f-]{36}#x$/);

    const unknown = await app.inject({ method: 'GET', url: '/l/Zz9yX8wV' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ code: 'NOT_FOUND', message: 'no tracked link at this address', data: {}, extra: {} });
  });

  it('replaying `clicks` rebuilds identical rows', async () => {
    await awaitCaughtUp(runtime, [clicksProjection], 30_000);
    const before = await tableChecksum(runtime.db, 'clicks');
    expect(before.rows).toBe('2');
    await projectors.stop();
    await replayProjection(runtime.db, runtime.eventLog, clicksProjection);
    expect(await tableChecksum(runtime.db, 'clicks')).toEqual(before);
    projectors = await startProjectors(runtime);
  });
});
