import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { openRuntime } from '../../platform/runtime.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, testEnvironment, type TestRuntime } from '../support/app.js';
import { cuttingProxy, type CuttingProxy } from '../support/cutting-proxy.js';
import { postbackWorld, postPostback } from '../support/postback-world.js';

type App = Awaited<ReturnType<typeof createTestApp>>['app'];

/**
 * The schema registry behind a proxy this test stops (connections refused) and hangs (requests
 * taken, never answered), the real one behind it. A process registers every event schema of its
 * build when it opens the log: from then on a registry outage stops none of its writes or reads.
 * One that opens while the registry is out does not start, saying why.
 */
describe('the schema registry down or hung', () => {
  let t: TestRuntime & { app: App };
  let projectors: RunningProjectors;
  let proxy: CuttingProxy;
  let proxiedRegistry: string;
  let world: Awaited<ReturnType<typeof postbackWorld>>;
  let orders = 0;

  const postback = async (offerInstanceId: string) => {
    orders += 1;
    return postPostback(t.app, world.partner, { event_name: 'purchase', order_id: `registry-fault-${orders}`, offer_instance_id: offerInstanceId });
  };
  const open = (linkCode: string) => t.app.inject({ method: 'GET', url: `/c/${linkCode}` });
  const clicksLogged = async () => (await t.runtime.eventLog.endOffsets('clicks')).reduce((sum, end) => sum + Number(end.offset), 0);

  /** A card served, clicked through its link and converted, each answered as with the registry up. */
  async function serveClickConvert() {
    const card = await world.serve(world.cpaOffer);
    const before = await clicksLogged();
    const click = await open(card.link_code!);
    expect(click.statusCode, click.body).toBe(302);
    expect(await clicksLogged()).toBe(before + 1);
    const clickId = new URL(click.headers.location!).searchParams.get('svc_click_id')!;
    orders += 1;
    const converted = await postPostback(t.app, world.partner, { event_name: 'purchase', order_id: `registry-fault-${orders}`, svc_click_id: clickId });
    expect(converted.statusCode, converted.body).toBe(200);
    expect(converted.json().data).toMatchObject({ result: 'accepted', attribution: { matched_by: 'svc_click_id', svc_click_id: clickId } });
  }

  beforeAll(async () => {
    const registry = new URL(inject('stack').schemaRegistryUrl);
    proxy = await cuttingProxy({ host: registry.hostname, port: Number(registry.port) });
    proxiedRegistry = `http://127.0.0.1:${proxy.port}${registry.pathname}`;
    t = await createTestApp({ eventLog: 'kafka', env: { SCHEMA_REGISTRY_URL: proxiedRegistry, LINK_BASE: 'https://go.example.test/c' } });
    projectors = await startProjectors(t.runtime);
    world = await postbackWorld(t.runtime);
    const card = await world.serve(world.cpaOffer);
    expect((await postback(card.offer_instance_id)).json().data.result).toBe('accepted');
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
    await proxy?.close();
  });

  // Clicks were never appended by this process before: their schema id was learned at start.
  it('refusing connections: every event type is still logged, projected and decided; /readyz names the registry but stays ready', async () => {
    const ready = async () => (await t.app.inject('/readyz')) as { statusCode: number; json(): { data: { backends: Record<string, string> } } };
    expect((await ready()).json().data.backends.schema_registry).toBe('ok');
    proxy.refuse();
    try {
      const during = await ready();
      expect(during.statusCode).toBe(200);
      expect(during.json().data.backends).toMatchObject({ database: 'ok', event_log: 'ok', schema_registry: expect.stringMatching(/^unavailable: .*not needed while this process runs/) });
      await serveClickConvert();
    } finally {
      proxy.heal();
    }
  });

  it('taking requests and never answering: the same', async () => {
    proxy.swallow();
    try {
      await serveClickConvert();
    } finally {
      proxy.heal();
    }
  });

  it('a process opening the log while the registry is out does not start, and says which setting to check', async () => {
    proxy.refuse();
    try {
      const config = loadConfig(testEnvironment(t.database, t.topicPrefix, { eventLog: 'kafka', env: { SCHEMA_REGISTRY_URL: proxiedRegistry } }));
      await expect(openRuntime(config)).rejects.toThrow(/SCHEMA_REGISTRY_URL/);
    } finally {
      proxy.heal();
    }
  });

  it('a registry request not answered within its deadline fails the call (reading a schema this build does not know, 300 ms deadline)', async () => {
    const codec = registryCodec(proxiedRegistry, loadSchemaCatalog(), { timeoutMs: 300 });
    proxy.swallow();
    try {
      // The wire header of schema id 1,000,000: reading it asks the registry for that schema.
      await expect(codec.decode(Buffer.from([0, 0x00, 0x0f, 0x42, 0x40]))).rejects.toThrow(/timeout/i);
    } finally {
      proxy.heal();
    }
  });

  it('the registry back, a fresh process registers and serves as before', async () => {
    const config = loadConfig(testEnvironment(t.database, t.topicPrefix, { eventLog: 'kafka', env: { SCHEMA_REGISTRY_URL: proxiedRegistry } }));
    const runtime = await openRuntime(config);
    await runtime.close();
    await serveClickConvert();
  });
});
