import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment } from '../support/app.js';
import type { ServiceProcess } from '../support/child-process.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { PROTOCOL } from '../support/postback-world.js';
import { startApi, startProjector, type ApiProcess } from '../support/service-processes.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Production's shape: two API processes (behind a balancer) and two projector processes sharing
 * the partitions, on Kafka. What one API process did is what the other one answers: a card
 * served by one is found by the other with no retry, a postback for it sent to the other is
 * recorded (never a terminal refusal of a fresh id), and a change made through the admin API of
 * one is answered by the other.
 */
const ADMIN_TOKEN = 'admin-token-for-shared-api-processes-0123456789';
let database: TestDatabase;
const processes: ServiceProcess[] = [];
let apis: [ApiProcess, ApiProcess];
let partner: string;
let application: string;
let key: string;
let placement: string;

async function command(api: ApiProcess, name: string, input: Record<string, unknown>): Promise<Record<string, string>> {
  const response = await fetch(`${api.url}/admin/commands/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as { data: Record<string, string> };
  if (response.status !== 200) throw new Error(`${name} answered ${response.status}: ${JSON.stringify(body)}`);
  return body.data;
}

const offerRoute = (api: ApiProcess, route: 'query' | 'instances', apiKey: string, body: unknown) =>
  fetch(`${api.url}/v1/offers/${route}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function serve(api: ApiProcess, apiKey = key, placementId = placement): Promise<string> {
  const response = await offerRoute(api, 'query', apiKey, { placement_id: placementId, limit: 1 });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { cards: { offer_instance_id: string }[] } }).data.cards[0]!.offer_instance_id;
}

beforeAll(async () => {
  database = await createTestDatabase();
  const env = testEnvironment(database, `t${randomBytes(4).toString('hex')}.`, { eventLog: 'kafka', env: { PROJECTORS: 'separate', ADMIN_TOKEN, LOG_LEVEL: 'warn' } });
  processes.push(...(await Promise.all([startProjector(env), startProjector(env)])));
  apis = await Promise.all([startApi(env), startApi(env)]);
  processes.push(...apis);
  const [first] = apis;
  const developer = (await command(first, 'developer:register', { name: 'shared dev', email: `shared-${randomBytes(4).toString('hex')}@example.com` })).developer_id!;
  application = (await command(first, 'application:register', { developer_id: developer, name: 'shared app', status: 'live' })).application_id!;
  key = (await command(first, 'api-key:issue', { application_id: application, kind: 'live' })).key!;
  placement = (await command(first, 'placement:create', { application_id: application, name: 'shared placement', status: 'active' })).placement_id!;
  partner = (await command(first, 'partner:configure', { name: 'shared partner', source_ip_allowlist: ['127.0.0.1', '::1'], goal_mappings: [{ event_name: 'purchase', goal_event: 'install' }] })).partner_id!;
  await command(first, 'offer:upsert', {
    partner_id: partner,
    kind: 'local',
    status: 'active',
    destination_url: 'https://shop.example/landing',
    details: {
      offer_info: { title: 'shared offer', category: { id: 'shopping' }, description: 'served by either process' },
      entity: { id: 'ent-1', name: 'Acme', type: 'merchant' },
      goals: [{ event: 'install', pricing: { model: 'cpa', amount: '2.00', currency: 'USD' } }],
    },
  });
}, 240_000);

afterAll(async () => {
  for (const service of processes) await service.stop('SIGKILL');
  await database?.drop();
});

describe('two API processes and two projectors on one database and log', () => {
  it('a card served by one API process is found by the other at once, and a postback for it sent there is recorded, each time', async () => {
    const misses: string[] = [];
    for (let round = 0; round < 200; round++) {
      const [serving, reading] = round % 2 === 0 ? apis : [apis[1], apis[0]];
      const card = await serve(serving);
      const looked = await offerRoute(reading, 'instances', key, { offer_instance_ids: [card] });
      const item = ((await looked.json()) as { data?: { instances?: { status: string }[] } }).data?.instances?.[0];
      if (looked.status !== 200 || item?.status !== 'found') misses.push(`lookup ${round}: ${looked.status} ${item?.status}`);
      if (round % 10 === 0) {
        const fresh = await serve(serving);
        const posted = await fetch(`${reading.url}/v1/postback/${partner}`, {
          method: 'POST',
          headers: PROTOCOL,
          body: JSON.stringify({ event_name: 'purchase', offer_instance_id: fresh, event_id: `shared-${round}` }),
        });
        const answer = (await posted.json()) as { data: { result?: string } };
        if (posted.status !== 200 || answer.data.result !== 'accepted') misses.push(`postback ${round}: ${posted.status} ${JSON.stringify(answer)}`);
      }
    }
    expect(misses).toEqual([]);
  }, 180_000);

  it('a placement deactivated and a key revoked through one API process are refused by the other', async () => {
    for (const [changing, serving] of [apis, [apis[1], apis[0]]] as const) {
      const issued = await command(changing, 'api-key:issue', { application_id: application, kind: 'live' });
      const placementId = (await command(changing, 'placement:create', { application_id: application, name: `placement ${randomBytes(3).toString('hex')}`, status: 'active' })).placement_id!;
      // The other process has read (and kept) the key and the placement.
      await serve(serving, issued.key!, placementId);
      const statusOf = async () => (await offerRoute(serving, 'query', issued.key!, { placement_id: placementId, limit: 1 })).status;

      // It hears of the change through the commit's notification (README, "Instance lookup": caches).
      await command(changing, 'placement:set-status', { placement_id: placementId, status: 'inactive' });
      await waitFor(async () => (await statusOf()) !== 200, { timeoutMs: 10_000, what: 'the other process to refuse the inactive placement' });
      await command(changing, 'api-key:revoke', { key_id: issued.key_id });
      await waitFor(async () => (await statusOf()) === 401, { timeoutMs: 10_000, what: 'the other process to refuse the revoked key' });
    }
  }, 120_000);
});
