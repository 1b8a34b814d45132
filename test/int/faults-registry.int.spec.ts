import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { REGISTRY_TIMEOUT_MS, registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { cuttingProxy, type CuttingProxy } from '../support/cutting-proxy.js';
import { postbackWorld, postPostback } from '../support/postback-world.js';

type App = Awaited<ReturnType<typeof createTestApp>>['app'];

/**
 * The schema registry behind a proxy this test stops (connections refused) and hangs (requests
 * taken, never answered), the real one behind it. Schema ids are cached once known: writes of
 * event types already written go on; the first write of a type must wait for the registry, and
 * gets a retryable 503 rather than a request held for as long as the registry hangs.
 */
describe('writes while the schema registry is down or hung', () => {
  let t: TestRuntime & { app: App };
  let projectors: RunningProjectors;
  let proxy: CuttingProxy;
  let world: Awaited<ReturnType<typeof postbackWorld>>;
  let orders = 0;

  const postback = async (offerInstanceId: string) => {
    orders += 1;
    return postPostback(t.app, world.partner, { event_name: 'purchase', order_id: `registry-fault-${orders}`, offer_instance_id: offerInstanceId });
  };
  /** Opens a card's short link (the first click of this process: its event type has no schema id yet). */
  const open = (linkCode: string) => t.app.inject({ method: 'GET', url: `/c/${linkCode}` });
  const clicksLogged = async () => (await t.runtime.eventLog.endOffsets('clicks')).reduce((sum, end) => sum + Number(end.offset), 0);

  beforeAll(async () => {
    const registry = new URL(inject('stack').schemaRegistryUrl);
    proxy = await cuttingProxy({ host: registry.hostname, port: Number(registry.port) });
    t = await createTestApp({
      eventLog: 'kafka',
      env: { SCHEMA_REGISTRY_URL: `http://127.0.0.1:${proxy.port}${registry.pathname}`, LINK_BASE: 'https://go.example.test/c' },
    });
    projectors = await startProjectors(t.runtime);
    world = await postbackWorld(t.runtime);
    // Postbacks and serves are known to this process from here on; clicks are not.
    const card = await world.serve(world.cpaOffer);
    expect((await postback(card.offer_instance_id)).json().data.result).toBe('accepted');
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
    await proxy?.close();
  });

  it('registry refusing connections: known event types are still logged and decided; a new one is a retryable 503 that logs nothing', async () => {
    proxy.refuse();
    try {
      const card = await world.serve(world.cpaOffer);
      const accepted = await postback(card.offer_instance_id);
      expect(accepted.statusCode, accepted.body).toBe(200);
      expect(accepted.json().data.result).toBe('accepted');

      const before = await clicksLogged();
      const click = await open(card.link_code!);
      expect(click.statusCode, click.body).toBe(503);
      expect(click.json()).toMatchObject({ code: 'LINK_UNAVAILABLE', data: {} });
      expect(await clicksLogged()).toBe(before);
    } finally {
      proxy.heal();
    }
  });

  it('registry taking requests and never answering: the new event type is a 503 after the registry deadline, not a request held forever; known types go on', async () => {
    proxy.swallow();
    try {
      const card = await world.serve(world.cpaOffer);
      const started = Date.now();
      const click = await open(card.link_code!);
      expect(click.statusCode, click.body).toBe(503);
      // Answered by the registry's deadline, before the link route's own deadline (8 s) ran out.
      expect(Date.now() - started).toBeGreaterThanOrEqual(REGISTRY_TIMEOUT_MS);
      expect(click.json().message).toBe('the link cannot be opened right now; retry shortly');

      const accepted = await postback(card.offer_instance_id);
      expect(accepted.statusCode, accepted.body).toBe(200);
    } finally {
      proxy.heal();
    }
  });

  it('a registry request not answered within its deadline fails the call (a fresh codec asking for a schema, a 300 ms deadline)', async () => {
    const registry = new URL(inject('stack').schemaRegistryUrl);
    const codec = registryCodec(`http://127.0.0.1:${proxy.port}${registry.pathname}`, loadSchemaCatalog(), { timeoutMs: 300 });
    proxy.swallow();
    try {
      // The wire header of schema id 1,000,000: reading it asks the registry for that schema.
      await expect(codec.decode(Buffer.from([0, 0x00, 0x0f, 0x42, 0x40]))).rejects.toThrow(/timeout/i);
    } finally {
      proxy.heal();
    }
  });

  it('once the registry answers again, the new event type is registered and logged', async () => {
    const card = await world.serve(world.cpaOffer);
    const before = await clicksLogged();
    const click = await open(card.link_code!);
    expect(click.statusCode, click.body).toBe(302);
    expect(await clicksLogged()).toBe(before + 1);
  });
});
