import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCommands } from '../../commands/index.js';
import { CommandInputError } from '../../commands/command.js';
import { validateInput } from '../../commands/validate.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { projections, startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

/**
 * Whatever input the write side accepts, every read model applies: a command that appends an
 * event a projection cannot apply would stop that read model for good (its projector retries the
 * same event for ever, and every later command waits for it). Inputs here are valid in shape and
 * hostile in content: text with quotes, backslashes, NUL-like and control characters, surrogates,
 * other scripts and lengths at the limits; decimals and times at their edges; networks written in
 * every spelling. A refusal (CommandInputError) is an answer too; an accepted input must be
 * applied by every projection within seconds.
 */
let t: TestRuntime;
let projectors: RunningProjectors;
let partnerId: string;
let applicationId: string;

const CAUGHT_UP_MS = 15_000;

/** As the admin executor runs a command: the read models at the log's end first. */
async function execute(name: string, input: unknown): Promise<Record<string, unknown> | 'refused'> {
  const command = adminCommands.find((candidate) => candidate.name === name)!;
  await awaitCaughtUp(t.runtime, projections, CAUGHT_UP_MS);
  try {
    return (await command.execute(validateInput(command.input, input), { runtime: t.runtime, now: () => new Date() })) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof CommandInputError) return 'refused';
    throw error;
  }
}

beforeAll(async () => {
  t = await createTestRuntime();
  projectors = await startProjectors(t.runtime);
  await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
  partnerId = (await execute('partner:configure', { name: 'Poison partner' }) as Record<string, string>).partner_id!;
  const developerId = (await execute('developer:register', { name: 'Poison dev', email: 'poison@commands.test' }) as Record<string, string>).developer_id!;
  applicationId = (await execute('application:register', { developer_id: developerId, name: 'poison app' }) as Record<string, string>).application_id!;
  await awaitCaughtUp(t.runtime, projections, CAUGHT_UP_MS);
}, 120_000);
afterAll(async () => {
  await projectors?.stop();
  await t?.close();
});

const hostileUnit = fc.oneof(
  fc.constantFrom('"', "'", '\\', '\\u0000', '%00', '\u0001', '\u001f', '\u007f', '\u00a0', '\u2028', '\u202e', '\ufeff', '\ufffd', 'é', 'ß', 'Ł', '😀', '𝐀', '\u0301', '<', '&', '$1', '{svc_click_id}', '\t', '\n', ' '),
  fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' }),
  fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
);
/** A key of a free-form map: plain, hostile, or holding what no read model stores (a NUL, a lone surrogate). */
const credentialKey = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/) },
  { weight: 1, arbitrary: fc.string({ unit: fc.oneof(fc.constantFrom('\u0000', '\ud800', '\udc00', '"', '\\', '.'), fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })), minLength: 1, maxLength: 8 }) },
);
/** Text of 1..max characters (the schemas' limits count characters), often at the limit. */
const hostile = (max: number) =>
  fc.oneof(
    fc.string({ unit: hostileUnit, minLength: 1, maxLength: Math.min(max, 40) }),
    fc.string({ unit: hostileUnit, minLength: 1, maxLength: 3 }).map((piece) => piece.repeat(Math.ceil(max / piece.length)).slice(0, max)),
  );
const decimal = fc.oneof(
  fc.constantFrom('0', '0.0', '0.00000001', '999999999999.99999999', '1', '12.50', '100.00000000'),
  fc.tuple(fc.nat(999_999_999_999), fc.option(fc.stringMatching(/^[0-9]{1,8}$/))).map(([units, fraction]) => (fraction ? `${units}.${fraction}` : String(units))),
);
const time = fc.oneof(
  fc.constantFrom('0000-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '1970-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '2026-02-29T00:00:00Z', '2024-02-29T24:00:00Z', '2026-11-28T10:00:00+14:00', '2026-11-28T10:00:00-12:00', '2026-11-28T10:00:60Z'),
  fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString()),
);
const network = fc.oneof(
  fc.constantFrom('0.0.0.0/0', '::/0', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:1', '127.0.0.1/32', '10.0.0.1/8', '2001:DB8::/32', '2001:db8:0:0::/64', 'fe80::1%eth0', '1.2.3.4/33', '999.1.1.1'),
  fc.ipV4().map((ip) => `${ip}/${ip.length % 33}`),
  fc.ipV6(),
);

/** Ids of the excerpt's catalog (countries, states, cities), ids it lacks, and ids at the edges. */
const locationId = fc.constantFrom('2840', '21136', '20850', '2076', '1014221', '9061331', '0', '1', '9223372036854775807', '99999999999999999999', '00002840');

const details = fc.record({
  title: hostile(500),
  category: hostile(200),
  description: fc.oneof(fc.constant(''), hostile(10_000)),
  entity: fc.tuple(hostile(200), hostile(500), hostile(100)),
  goals: fc.array(
    fc.oneof(
      fc.record({ event: hostile(100), amount: decimal, currency: fc.constantFrom('USD', 'EUR', 'JPY', 'XXX', 'ZZZ') }),
      fc.record({ event: hostile(100), rate: decimal }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  material: fc.option(fc.array(fc.record({ format: hostile(50), url: hostile(100).map((path) => `https://cdn.example/${path.replace(/\s/g, '_')}`), tag: hostile(100) }), { maxLength: 2 }), { nil: undefined }),
  action: fc.option(fc.record({ name: hostile(200), consumer_action: hostile(500) }), { nil: undefined }),
}).map(({ title, category, description, entity, goals, material, action }) => ({
  offer_info: { title, category: { id: category }, description },
  entity: { id: entity[0], name: entity[1], type: entity[2] },
  goals: goals.map((goal) => ('rate' in goal ? { event: goal.event, pricing: { model: 'cps', rate: goal.rate } } : { event: goal.event, pricing: { model: 'cpa', amount: goal.amount, currency: goal.currency } })),
  ...(material ? { material } : {}),
  ...(action ? { action } : {}),
}));

/** One accepted-or-refused command with hostile content, then every read model caught up. */
const commandInput = fc.oneof(
  fc.record({ name: fc.constant('partner:configure'), input: fc.record({ name: hostile(200), source_ip_allowlist: fc.array(network, { maxLength: 4 }), goal_mappings: fc.array(fc.record({ event_name: hostile(100), goal_event: hostile(100) }), { maxLength: 3 }) }) }),
  fc.record({ name: fc.constant('developer:register'), input: fc.record({ name: hostile(200), email: fc.tuple(hostile(20), fc.uuid()).map(([local, id]) => `${local.replace(/[\s@]/g, 'x')}.${id}@example.test`) }) }),
  fc.record({ name: fc.constant('placement:create'), input: hostile(200).map((name) => ({ application_id: applicationId, name })) }),
  fc.record({
    name: fc.constant('offer:upsert'),
    input: fc.record({ details, upstream: fc.option(hostile(200), { nil: undefined }), destination: fc.option(hostile(100).map((path) => `https://shop.example/${encodeURIComponent(path.replace(/\p{Cs}/gu, "x"))}?c={svc_click_id}`), { nil: undefined }), credentials: fc.dictionary(credentialKey, hostile(4000), { maxKeys: 2 }) }).map(({ details: document, upstream, destination, credentials }) => ({
      partner_id: partnerId, kind: 'local', status: 'active', details: document,
      ...(upstream === undefined ? {} : { upstream_offer_id: upstream }),
      ...(destination === undefined ? {} : { destination_url: destination }),
      internal: { credentials, settlement_contract: 'contract' },
    })),
  }),
  fc.record({
    name: fc.constant('offer:upsert'),
    input: fc.array(fc.record({ include: fc.array(locationId, { maxLength: 4 }), exclude: fc.array(locationId, { maxLength: 4 }) }), { maxLength: 3 }).map((rules) => ({
      partner_id: partnerId, kind: 'local', status: 'active',
      details: { offer_info: { title: 't', category: { id: 'c' }, description: '' }, entity: { id: 'e', name: 'E', type: 'x' }, goals: [{ event: 'install', pricing: { model: 'cpa', amount: '1', currency: 'USD' } }] },
      targeting: rules.map(({ include, exclude }) => ({ geo: { include: include.map((id) => ({ location_id: id })), exclude: exclude.map((id) => ({ location_id: id })) } })),
    })),
  }),
  fc.record({
    name: fc.constant('link:register'),
    input: fc.record({ shape: fc.constantFrom('short_code', 'instance_uuid', 'static_path'), code: fc.option(fc.oneof(hostile(100), fc.stringMatching(/^[A-Za-z0-9]{8}$/), fc.stringMatching(/^st_[A-Za-z0-9_-]{1,40}$/), fc.uuid()), { nil: undefined }), target: fc.option(hostile(100).map((path) => `https://shop.example/${encodeURIComponent(path.replace(/\p{Cs}/gu, 'x'))}`), { nil: undefined }) }),
  }),
  fc.record({ name: fc.constant('offer:publish-snapshot'), input: fc.record({ content: details, updatedAt: time, language: fc.constantFrom('en', 'pt-BR', 'zh-Hant-TW', 'x-klingon', 'EN') }) }),
);

/** The command input a drawn one stands for (the offers they name exist). */
function sentInput(name: string, input: Record<string, unknown>, offers: { remoteOffer: string; localOffer: string }): Record<string, unknown> {
  if (name === 'offer:publish-snapshot') return { offer_id: offers.remoteOffer, content: input.content, updated_at: input.updatedAt, language: input.language };
  if (name === 'link:register') {
    return { offer_id: offers.localOffer, shape: input.shape, ...(input.code === undefined ? {} : { code: input.code }), ...(input.target === undefined ? {} : { target_url: input.target }) };
  }
  return input;
}

describe('text no read model stores', () => {
  it('in a key of a free-form map is refused like in a value, and nothing is appended (a NUL in a key stopped the offer-internal projection for good)', async () => {
    const offersEnd = async () => (await t.runtime.eventLog.endOffsets('offers')).map((end) => `${end.partition}:${end.offset}`).sort();
    const before = await offersEnd();
    const details = { offer_info: { title: 't', category: { id: 'c' }, description: '' }, entity: { id: 'e', name: 'n', type: 'merchant' }, goals: [{ event: 'sale', pricing: { model: 'cpa', amount: '1', currency: 'USD' } }] };
    for (const key of ['a\u0000', '\u0000', 'k\ud800']) {
      const input = { partner_id: partnerId, kind: 'local', status: 'active', details, internal: { credentials: { [key]: 'v' } } };
      const command = adminCommands.find((candidate) => candidate.name === 'offer:upsert')!;
      // Not a name the map takes: refused as one, the name quoted with its character escaped.
      expect(() => validateInput(command.input, input)).toThrow(new RegExp(`^internal\\.credentials\\.${JSON.stringify(key).replace(/\\/g, '\\\\')}: is not a valid name`));
      expect(await execute('offer:upsert', input)).toBe('refused');
    }
    expect(await offersEnd()).toEqual(before);
    await awaitCaughtUp(t.runtime, projections, CAUGHT_UP_MS);
  });
});

describe('inputs the write side accepts', () => {
  it('are applied by every read model: no accepted command stops a projection', async () => {
    const { offer_id: remoteOffer } = (await execute('offer:upsert', { partner_id: partnerId, kind: 'remote', status: 'active' })) as Record<string, string>;
    const { offer_id: localOffer } = (await execute('offer:upsert', { partner_id: partnerId, kind: 'local', status: 'active', destination_url: 'https://shop.example/' })) as Record<string, string>;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(commandInput, async ({ name, input }) => {
        const sent = sentInput(name, input, { remoteOffer: remoteOffer!, localOffer: localOffer! });
        const result = await execute(name, sent);
        if (result === 'refused') return;
        accepted += 1;
        await expect(awaitCaughtUp(t.runtime, projections, CAUGHT_UP_MS), `${name} ${JSON.stringify(sent).slice(0, 500)}`).resolves.toBeUndefined();
      }),
      { numRuns: Number(process.env.POISON_RUNS ?? 150) },
    );
    // Many inputs are accepted (46-52 of 150 in runs measured, since names, labels and addresses
    // refuse control characters; 58-79 before): the property is about what the write side lets
    // through, so it must not be left with nearly nothing to check.
    expect(accepted).toBeGreaterThan(30);
  }, 600_000);
});
