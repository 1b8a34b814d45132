import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../commands/command.js';
import { registerLink } from '../../commands/offers/link-register.js';
import { publishSnapshot } from '../../commands/offers/publish-snapshot.js';
import { upsertOffer } from '../../commands/offers/upsert.js';
import { configurePartner } from '../../commands/partners/configure.js';
import { runCommand } from '../../commands/run.js';
import type { RunningProjection } from '../../platform/projection/runner.js';
import { startProjection } from '../../platform/projection/runner.js';
import { offerTargeting } from '../../projections/offers/internal/queries.js';
import { partnerOfferProjections } from '../../projections/offers/projections.js';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { createTestApp, testEnvironment, type TestRuntime } from '../support/app.js';
import { runCli } from '../support/cli.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { waitFor } from '../support/wait-for.js';

// Admin validation on the real stack: every rejected input names its field and appends nothing
// (the log's end offsets stay where they were); targeting is checked against the real excerpt.
const ADMIN_TOKEN = 'offers-admin-test-token-0123456789';
let t: TestRuntime & { app: Awaited<ReturnType<typeof createTestApp>>['app'] };
let running: RunningProjection[] = [];
let partnerId: string;
let localOfferId: string;
let remoteOfferId: string;

const details = () => ({
  offer_info: { title: 'Spring sale', category: { id: 'shopping' }, description: 'Up to 30 % off.' },
  entity: { id: 'ent-1', name: 'Acme Shop', type: 'merchant' },
  goals: [{ event: 'install', pricing: { model: 'cpa', amount: '12.50', currency: 'USD' } }],
});

const run = (command: Command, input: unknown) => runCommand(command, input, { runtime: t.runtime, now: () => new Date() });

async function endOffsets() {
  const all = await Promise.all(['partners', 'offers'].map((topic) => t.runtime.eventLog.endOffsets(topic)));
  return all.flat().map((o) => `${o.topic}:${o.partition}:${o.offset}`).sort();
}

async function caughtUp() {
  await waitFor(async () => (await Promise.all(running.map((p) => p.lag()))).flat().every((p) => p.lag === 0), { what: 'projections caught up' });
}

/** Runs a command that must fail, and checks that nothing reached the log. */
async function expectRejected(command: Command, input: unknown, error: { name?: string; field: string; message?: RegExp }) {
  const before = await endOffsets();
  const failure = await run(command, input).then(
    () => undefined,
    (thrown: Error) => thrown,
  );
  expect(failure, `${command.name} should reject ${JSON.stringify(input).slice(0, 200)}`).toBeInstanceOf(Error);
  expect(failure).toMatchObject({ name: error.name ?? 'CommandInputError', field: error.field });
  if (error.message) expect(failure!.message).toMatch(error.message);
  expect(await endOffsets()).toEqual(before);
}

beforeAll(async () => {
  t = await createTestApp({ eventLog: 'kafka', env: { ADMIN_TOKEN } });
  await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
  for (const projection of partnerOfferProjections) running.push(await startProjection(projection, { db: t.runtime.db, eventLog: t.runtime.eventLog }));
  partnerId = String((await run(configurePartner, { name: 'Acme', source_ip_allowlist: ['192.0.2.0/24'] })).partner_id);
  await caughtUp();
  localOfferId = String((await run(upsertOffer, { partner_id: partnerId, kind: 'local', status: 'active', details: details() })).offer_id);
  remoteOfferId = String((await run(upsertOffer, { partner_id: partnerId, kind: 'remote', status: 'active' })).offer_id);
  await caughtUp();
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await t?.close();
});

describe('offer targeting against the FULL catalog (real excerpt)', () => {
  const offer = (targeting: unknown) => ({ partner_id: partnerId, kind: 'local', status: 'active', targeting });

  it('accepts ids that exist in the current release and stores them internally', async () => {
    const result = await run(upsertOffer, offer([
      { geo: { include: [{ location_id: '2840' }], exclude: [{ location_id: '21137' }] } },
      { geo: { include: [{ location_id: '1000002' }] } },
    ]));
    await caughtUp();
    expect(await offerTargeting(t.runtime.db, String(result.offer_id))).toEqual([
      { rule_index: 0, include: ['2840'], exclude: ['21137'] },
      { rule_index: 1, include: ['1000002'], exclude: [] },
    ]);
  });

  it('rejects a well-formed id missing from the catalog, naming the rule and the id', async () => {
    await expectRejected(
      upsertOffer,
      offer([{ geo: { include: [{ location_id: '2840' }] } }, { geo: { include: [{ location_id: '2004' }, { location_id: '999999999' }] } }]),
      { field: 'targeting[1].geo.include[1].location_id', message: /rule targeting\[1\] includes location 999999999, which is not in the FULL catalog \(release 2025-07-15\)/ },
    );
    await expectRejected(upsertOffer, offer([{ geo: { exclude: [{ location_id: '99999999999999999999' }] } }]), { field: 'targeting[0].geo.exclude[0].location_id' });
  });

  it('rejects 11 rules', async () => {
    const rule = { geo: { include: [{ location_id: '2840' }] } };
    await expectRejected(upsertOffer, offer(Array.from({ length: 11 }, () => rule)), { field: 'targeting', message: /less or equal to 10/ });
  });

  it('rejects an extra field in a geo object, a non-numeric id, an empty rule and a repeated id', async () => {
    await expectRejected(upsertOffer, offer([{ geo: { include: [{ location_id: '2840', name: 'United States' }] } }]), {
      field: 'targeting[0].geo.include[0].name',
      message: /not a known field/,
    });
    await expectRejected(upsertOffer, offer([{ geo: { include: [{ location_id: 'US' }] } }]), { field: 'targeting[0].geo.include[0].location_id' });
    await expectRejected(upsertOffer, offer([{ geo: { include: [], exclude: [] } }]), { field: 'targeting[0].geo' });
    await expectRejected(upsertOffer, offer([{ geo: { include: [{ location_id: '2840' }, { location_id: '2840' }] } }]), {
      field: 'targeting[0].geo.include[1].location_id',
    });
    await expectRejected(upsertOffer, offer([{ geo: { include: [{ location_id: '2840' }] }, extra: true }]), { field: 'targeting[0].extra' });
    // Included and excluded by one rule: exclude wins, the include could never match.
    await expectRejected(upsertOffer, offer([{ geo: { include: [{ location_id: '2036' }, { location_id: '2840' }], exclude: [{ location_id: '2840' }] } }]), {
      field: 'targeting[0].geo.include[1].location_id',
      message: /rule targeting\[0\] both includes and excludes location 2840; exclude wins/,
    });
  });
});

describe('offer:upsert validation', () => {
  const valid = () => ({ partner_id: partnerId, kind: 'local', status: 'active', details: details() });

  it('rejects non-canonical ids naming the field', async () => {
    const id = '01939c5e-7b1a-7c3e-9f00-0123456789ab';
    await expectRejected(upsertOffer, { ...valid(), offer_id: id.toUpperCase() }, { field: 'offer_id' });
    await expectRejected(upsertOffer, { ...valid(), offer_id: `{${id}}` }, { field: 'offer_id' });
    await expectRejected(upsertOffer, { ...valid(), partner_id: partnerId.toUpperCase() }, { field: 'partner_id' });
  });

  it('rejects bad enums, unknown fields, details on remote offers and inconsistent pricing', async () => {
    await expectRejected(upsertOffer, { ...valid(), status: 'live' }, { field: 'status' });
    await expectRejected(upsertOffer, { ...valid(), kind: 'LOCAL' }, { field: 'kind' });
    await expectRejected(upsertOffer, { ...valid(), secret: 'x' }, { field: 'secret' });
    await expectRejected(upsertOffer, { ...valid(), kind: 'remote' }, { field: 'details', message: /snapshots/ });
    const goals = [{ event: 'install', pricing: { model: 'cpa', amount: '12.50' } }];
    await expectRejected(upsertOffer, { ...valid(), details: { ...details(), goals } }, { field: 'details.goals[0].pricing.currency' });
    const floaty = [{ event: 'install', pricing: { model: 'cpa', amount: '1e3', currency: 'USD' } }];
    await expectRejected(upsertOffer, { ...valid(), details: { ...details(), goals: floaty } }, { field: 'details.goals[0].pricing.amount' });
  });

  it('rejects an unknown partner as not found', async () => {
    await expectRejected(upsertOffer, { ...valid(), partner_id: '01939c5e-7b1a-7c3e-9f00-00000000dead' }, { name: 'CommandNotFoundError', field: 'partner_id' });
  });

  it("never moves an offer to another partner (its clicks would become that partner's), and still replaces it for its own", async () => {
    const other = String((await run(configurePartner, { name: 'Other partner', source_ip_allowlist: ['198.51.100.0/24'] })).partner_id);
    await caughtUp();
    await expectRejected(upsertOffer, { offer_id: localOfferId, partner_id: other, kind: 'local', status: 'active', details: details() }, { field: 'partner_id', message: /belongs to partner .* never changes/ });
    const replaced = await run(upsertOffer, { offer_id: localOfferId, partner_id: partnerId, kind: 'local', status: 'paused', details: details() });
    expect(replaced.offer_id).toBe(localOfferId);
  });
});

describe('offer:publish-snapshot and link:register validation', () => {
  const content = details();

  it('rejects snapshots of local or unknown offers, bad languages and malformed content', async () => {
    await expectRejected(publishSnapshot, { offer_id: localOfferId, content }, { field: 'offer_id', message: /local/ });
    await expectRejected(publishSnapshot, { offer_id: '01939c5e-7b1a-7c3e-9f00-00000000dead', content }, { name: 'CommandNotFoundError', field: 'offer_id' });
    await expectRejected(publishSnapshot, { offer_id: remoteOfferId, language: 'english!', content }, { field: 'language' });
    await expectRejected(publishSnapshot, { offer_id: remoteOfferId, content: { ...content, entity: { id: 'e' } } }, { field: 'content.entity.name' });
    await expectRejected(publishSnapshot, { offer_id: remoteOfferId, updated_at: 'yesterday', content }, { field: 'updated_at' });
  });

  it('rejects a snapshot id that belongs to another offer', async () => {
    const other = String((await run(upsertOffer, { partner_id: partnerId, kind: 'remote', status: 'paused' })).offer_id);
    await caughtUp();
    const { snapshot_id } = await run(publishSnapshot, { offer_id: other, content });
    await caughtUp();
    await expectRejected(publishSnapshot, { offer_id: remoteOfferId, snapshot_id, content }, { field: 'snapshot_id' });
  });

  it('rejects codes of the wrong shape, taken codes, unknown offers and non-canonical ids', async () => {
    await expectRejected(registerLink, { offer_id: localOfferId, shape: 'short_code', code: 'Ab3dE6g' }, { field: 'code' });
    await expectRejected(registerLink, { offer_id: localOfferId, shape: 'static_path', code: 'static/st_x' }, { field: 'code' });
    await expectRejected(registerLink, { offer_id: localOfferId, shape: 'qr' }, { field: 'shape' });
    await expectRejected(registerLink, { offer_id: localOfferId, shape: 'short_code', application_id: 'APP' }, { field: 'application_id' });
    await expectRejected(registerLink, { offer_id: '01939c5e-7b1a-7c3e-9f00-00000000dead', shape: 'short_code' }, { name: 'CommandNotFoundError', field: 'offer_id' });
    const { code } = await run(registerLink, { offer_id: localOfferId, shape: 'short_code' });
    await caughtUp();
    await expectRejected(registerLink, { offer_id: remoteOfferId, shape: 'short_code', code }, { field: 'code', message: /already registered/ });
  });
});

describe('the admin HTTP API', () => {
  const post = (name: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url: `/admin/commands/${name}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: payload as object });

  it('answers 400 naming the field, and appends nothing', async () => {
    const before = await endOffsets();
    const rule = { geo: { include: [{ location_id: '999999999' }] } };
    const response = await post('offer:upsert', { partner_id: partnerId, kind: 'local', status: 'active', targeting: [rule] });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'BAD_REQUEST', data: {}, extra: { field: 'targeting[0].geo.include[0].location_id' } });
    expect(response.json().message).toMatch(/999999999/);
    expect(await endOffsets()).toEqual(before);
  });

  it('runs a valid command', async () => {
    const response = await post('link:register', { offer_id: localOfferId, shape: 'static_path' });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ offer_id: localOfferId, code: expect.stringMatching(/^st_/), url: expect.stringMatching(/\/static\/st_/) });
  });
});

describe('the admin CLI', () => {
  async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const result = await runCli('services/admin/cli.ts', args, testEnvironment(t.database, t.topicPrefix, { eventLog: 'kafka' }));
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('documents every flag in --help', async () => {
    const { code, stdout } = await cli(['offer:upsert', '--help']);
    expect(code).toBe(0);
    for (const flag of ['--offer-id', '--partner-id', '--kind', '--status', '--test-only', '--details <json>', '--targeting <json>', '--internal <json>', '--input-file']) {
      expect(stdout).toContain(flag);
    }
  });

  it('exits 2 naming the field for invalid input and 3 for a missing partner', async () => {
    const invalid = await cli(['offer:upsert', '--partner-id', partnerId, '--kind', 'local', '--status', 'active', '--targeting', '[{"geo":{"include":[{"location_id":"999999999"}]}}]']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/targeting\[0\]\.geo\.include\[0\]\.location_id: .*999999999/);
    const missing = await cli(['offer:upsert', '--partner-id', '01939c5e-7b1a-7c3e-9f00-00000000dead', '--kind', 'remote', '--status', 'paused']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/partner_id/);
  });

  it.each([
    [['--input-file', '/nonexistent/offer.json'], /^error: --input-file: cannot read \/nonexistent\/offer\.json \(ENOENT\)$/m],
    [['--input', '{"kind":'], /^error: --input: is not JSON: /m],
    [['--input', '{}', '--kind', 'local'], /^error: input: given more than one way \(--input; --kind\): use --input-file, --input or the field flags$/m],
  ])('%j exits 2 naming how the input was given', async (args, message) => {
    const { code, stderr } = await cli(['offer:upsert', ...args]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});
