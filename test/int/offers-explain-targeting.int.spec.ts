import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCommands } from '../../commands/index.js';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { commandExecutor, type CommandExecutor } from '../../services/admin/command-executor.js';
import { projections, startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, testEnvironment, type TestRuntime } from '../support/app.js';
import { ownLines, printed, runAdmin } from '../support/cli.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

/** Partners ask "why is my offer not shown in X": the answer names the rule and the ancestor. */
const ADMIN_TOKEN = 'admin-token-for-explain-tests-0123456789';

describe('offer:explain-targeting', () => {
  let t: TestRuntime & { app: Awaited<ReturnType<typeof createTestApp>>['app'] };
  let projectors: RunningProjectors;
  let commands: CommandExecutor;
  const offers: Record<string, string> = {};
  let partner: string;
  const details = {
    offer_info: { title: 'Sale', category: { id: 'shopping' }, description: 'A sale' },
    entity: { id: 'e1', name: 'Shop', type: 'merchant' },
    goals: [{ event: 'sale', pricing: { model: 'cpa', amount: '1.00', currency: 'USD' } }],
  };
  const run = (name: string, input: Record<string, unknown>) => commands.run(adminCommands.find((command) => command.name === name)!, input);

  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'sql', env: { ADMIN_TOKEN } });
    await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
    projectors = await startProjectors(t.runtime);
    commands = commandExecutor(t.runtime, { projections, catchUpTimeoutMs: 60_000 });
    partner = String((await run('partner:configure', { name: 'Acme', source_ip_allowlist: ['192.0.2.0/24'] })).partner_id);
    const upsert = async (targeting: unknown[]) =>
      String((await run('offer:upsert', { partner_id: partner, kind: 'local', status: 'active', details, targeting })).offer_id);
    // United States but not California (2840 > 21137 > 9061180 La Jolla; 21167 New York).
    offers.usNotCa = await upsert([{ geo: { include: [{ location_id: '2840' }], exclude: [] } }, { geo: { include: [], exclude: [{ location_id: '21137' }] } }]);
    offers.anywhere = await upsert([]);
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
  });

  it('names the excluding rule and the ancestor that matched', async () => {
    expect(await run('offer:explain-targeting', { offer_id: offers.usNotCa, location_id: '9061180' })).toMatchObject({
      served: false,
      reason: 'excluded',
      rule: 1,
      via_location_id: '21137',
      via_name: 'California',
      location_ids: ['9061180', '21137', '2840'],
      explanation: 'rule 1 excludes its ancestor California (21137); an exclusion wins over any inclusion',
    });
  });

  it('names the including rule, and says when nothing includes the place', async () => {
    expect(await run('offer:explain-targeting', { offer_id: offers.usNotCa, location_id: '21167' })).toMatchObject({
      served: true, reason: 'included', rule: 0, via_location_id: '2840', via_name: 'United States',
    });
    expect(await run('offer:explain-targeting', { offer_id: offers.usNotCa, location_id: '2250' })).toMatchObject({
      served: false, reason: 'not_included', explanation: 'no rule includes France or any of its ancestors',
    });
    expect(await run('offer:explain-targeting', { offer_id: offers.anywhere, location_id: '2250' })).toMatchObject({ served: true, reason: 'no_targeting' });
  });

  it('says the offer is not served where its targeting allows it but its status or flags do not', async () => {
    const paused = String((await run('offer:upsert', { partner_id: partner, kind: 'local', status: 'paused', details, targeting: [] })).offer_id);
    expect(await run('offer:explain-targeting', { offer_id: paused, location_id: '2250' })).toMatchObject({
      served: false,
      reason: 'no_targeting',
      offer_status: 'paused',
      not_served_because: 'the offer is paused: it is served nowhere until it is active',
      explanation: 'the offer has no targeting: it is served everywhere; but the offer is paused: it is served nowhere until it is active',
    });
    await run('offer:upsert', { offer_id: paused, partner_id: partner, kind: 'local', status: 'active', details, targeting: [], deleted: true });
    expect(await run('offer:explain-targeting', { offer_id: paused, location_id: '2250' })).toMatchObject({ served: false, not_served_because: 'the offer is deleted: it is served nowhere' });
    const testOnly = String((await run('offer:upsert', { partner_id: partner, kind: 'local', status: 'active', details, targeting: [], test_only: true })).offer_id);
    expect(await run('offer:explain-targeting', { offer_id: testOnly, location_id: '2250' })).toMatchObject({ served: false, not_served_because: 'the offer is test-only: it is served to test serves only' });
  });

  it('says a remote offer is served nowhere until it has an active snapshot, as Query serves it', async () => {
    const remote = String((await run('offer:upsert', { partner_id: partner, kind: 'remote', status: 'active', targeting: [] })).offer_id);
    expect(await run('offer:explain-targeting', { offer_id: remote, location_id: '2250' })).toMatchObject({
      served: false,
      reason: 'no_targeting',
      not_served_because: 'the remote offer has no active snapshot: it is served nowhere until one is published',
    });
    const { snapshot_id } = await run('offer:publish-snapshot', { offer_id: remote, language: 'en', content: details });
    const published = await run('offer:explain-targeting', { offer_id: remote, location_id: '2250' });
    expect(published).toMatchObject({ served: true, reason: 'no_targeting' });
    expect(published).not.toHaveProperty('not_served_because');
    await run('offer:publish-snapshot', { offer_id: remote, snapshot_id, language: 'en', content: details, active: false });
    expect(await run('offer:explain-targeting', { offer_id: remote, location_id: '2250' })).toMatchObject({ served: false });
  });

  it('places a city whose FULL parent is missing from the release under its country, as serving does (Kabul: its rules on Afghanistan apply)', async () => {
    const notAfghanistan = String((await run('offer:upsert', { partner_id: partner, kind: 'local', status: 'active', details, targeting: [{ geo: { include: [], exclude: [{ location_id: '2004' }] } }] })).offer_id);
    expect(await run('offer:explain-targeting', { offer_id: notAfghanistan, location_id: '1000002' })).toMatchObject({
      served: false, reason: 'excluded', via_location_id: '2004', via_name: 'Afghanistan', location_ids: ['1000002', '2004'],
    });
  });

  it('answers the same through the admin CLI (exit 0, or 3 or 2 naming the field) and the admin HTTP API (200, or 400 naming the field)', async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...testEnvironment(t.database, t.topicPrefix, { eventLog: 'sql' }) };
    const expected = { served: false, reason: 'excluded', rule: 1, via_location_id: '21137', via_name: 'California' };
    expect(printed(await runAdmin(env, 'offer:explain-targeting', { 'offer-id': offers.usNotCa!, 'location-id': '9061180' }))).toMatchObject(expected);
    // A location the catalog does not hold is a record that does not exist (exit 3); one that is no id, invalid input (exit 2).
    const unknownPlace = await runAdmin(env, 'offer:explain-targeting', { 'offer-id': offers.usNotCa!, 'location-id': '999999999' });
    expect([unknownPlace.status, ownLines(unknownPlace.stderr).join('\n')]).toEqual([3, expect.stringMatching(/location_id/)]);
    const notAnId = await runAdmin(env, 'offer:explain-targeting', { 'offer-id': offers.usNotCa!, 'location-id': 'x' });
    expect([notAnId.status, ownLines(notAnId.stderr).join('\n')]).toEqual([2, expect.stringMatching(/location_id/)]);

    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const url = '/admin/commands/offer:explain-targeting';
    const answer = await t.app.inject({ method: 'POST', url, headers, payload: { offer_id: offers.usNotCa, location_id: '9061180' } });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toMatchObject({ code: 'SUCCESS', data: expected });
    const refused = await t.app.inject({ method: 'POST', url, headers, payload: { offer_id: offers.usNotCa, location_id: 'x' } });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'BAD_REQUEST', data: {}, extra: { field: 'location_id' } });
  });

  it('rejects an unknown offer or location, naming the field', async () => {
    await expect(run('offer:explain-targeting', { offer_id: '01939c5e-7b1a-7c3e-9f00-00000000dead', location_id: '2840' })).rejects.toMatchObject({ field: 'offer_id' });
    await expect(run('offer:explain-targeting', { offer_id: offers.usNotCa, location_id: '999999999' })).rejects.toMatchObject({ field: 'location_id' });
    await expect(run('offer:explain-targeting', { offer_id: offers.usNotCa, location_id: 'x' })).rejects.toMatchObject({ field: 'location_id' });
    // 02840 is not how the catalog writes 2840 (the location routes answer 404 for it too).
    await expect(run('offer:explain-targeting', { offer_id: offers.usNotCa, location_id: '02840' })).rejects.toMatchObject({ field: 'location_id' });
  });
});
