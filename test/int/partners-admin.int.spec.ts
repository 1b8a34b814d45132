import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../commands/command.js';
import { appendEvents } from '../../commands/append.js';
import { configurePartner, partnerConfiguredEvent, partnerEvent } from '../../commands/partners/configure.js';
import { runCommand } from '../../commands/run.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { partnersProjection } from '../../projections/partners/projection.js';
import { findPartner } from '../../projections/partners/queries.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { replayProjection } from '../support/replay.js';
import { waitFor } from '../support/wait-for.js';

let t: TestRuntime;
let projection: RunningProjection;
const run = (command: Command, input: unknown) => runCommand(command, input, { runtime: t.runtime, now: () => new Date() });
const endOffsets = async () => (await t.runtime.eventLog.endOffsets('partners')).map((o) => `${o.partition}:${o.offset}`).sort();
const caughtUp = () => waitFor(async () => (await projection.lag()).every((p) => p.lag === 0), { what: 'partners projection caught up' });

beforeAll(async () => {
  t = await createTestRuntime({ eventLog: 'kafka' });
  projection = await startProjection(partnersProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog });
});
afterAll(async () => {
  await projection?.stop();
  await t?.close();
});

describe('partner:configure on Kafka', () => {
  it('projects the whole configuration, and a later event replaces it', async () => {
    const partner_id = '01939c5e-7b1a-7c3e-9f00-0000000000aa';
    await run(configurePartner, {
      partner_id,
      name: 'Acme Network',
      source_ip_allowlist: ['192.0.2.0/24', '2001:db8::/32', '198.51.100.7'],
      goal_mappings: [{ event_name: 'purchase', goal_event: 'sale' }, { event_name: 'install', goal_event: 'install' }],
    });
    await caughtUp();
    expect(await findPartner(t.runtime.db, partner_id)).toMatchObject({
      name: 'Acme Network',
      enabled: true,
      source_ip_allowlist: ['192.0.2.0/24', '198.51.100.7/32', '2001:db8::/32'],
      goal_mappings: { purchase: 'sale', install: 'install' },
    });

    await run(configurePartner, { partner_id, name: 'Acme Network', enabled: false, source_ip_allowlist: ['192.0.2.0/24'] });
    await caughtUp();
    expect(await findPartner(t.runtime.db, partner_id)).toMatchObject({ enabled: false, source_ip_allowlist: ['192.0.2.0/24'], goal_mappings: {} });
  });

  it('applies an event logged with two spellings of one network (written before the command made them one)', async () => {
    const partner_id = '01939c5e-7b1a-7c3e-9f00-0000000000ab';
    const event = { ...partnerConfiguredEvent({ partner_id, name: 'Two spellings' }, new Date()), source_ip_allowlist: ['::1/128', '0:0:0:0:0:0:0:1/128', '192.0.2.0/24'] };
    await appendEvents(t.runtime, 'partners', [partnerEvent(event)]);
    await caughtUp();
    expect(await findPartner(t.runtime.db, partner_id)).toMatchObject({ name: 'Two spellings', source_ip_allowlist: ['192.0.2.0/24', '::1/128'] });
  });

  it('mints a canonical UUIDv7 when no id is given', async () => {
    const { partner_id } = await run(configurePartner, { name: 'Minted' });
    expect(partner_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await caughtUp();
    expect(await findPartner(t.runtime.db, String(partner_id))).toMatchObject({ name: 'Minted', source_ip_allowlist: [] });
  });

  it.each([
    [{ name: 'A', partner_id: '01939C5E-7B1A-7C3E-9F00-0000000000AA' }, 'partner_id'],
    [{ name: 'A', partner_id: '{01939c5e-7b1a-7c3e-9f00-0000000000aa}' }, 'partner_id'],
    [{ name: '' }, 'name'],
    [{ name: 'A', enabled: 'yes' }, 'enabled'],
    [{ name: 'A', source_ip_allowlist: ['192.0.2.0/24', '192.0.2.1/24'] }, 'source_ip_allowlist[1]'],
    [{ name: 'A', source_ip_allowlist: ['2001:db8::/129'] }, 'source_ip_allowlist[0]'],
    [{ name: 'A', source_ip_allowlist: ['localhost'] }, 'source_ip_allowlist[0]'],
    [{ name: 'A', goal_mappings: [{ event_name: 'buy' }] }, 'goal_mappings[0].goal_event'],
    [{ name: 'A', goal_mappings: [{ event_name: 'buy', goal_event: 'sale', weight: 1 }] }, 'goal_mappings[0].weight'],
    [{ name: 'A', token: 'x' }, 'token'],
  ])('rejects %j naming %s and appends nothing', async (input, field) => {
    const before = await endOffsets();
    await expect(run(configurePartner, input)).rejects.toMatchObject({ name: 'CommandInputError', field });
    expect(await endOffsets()).toEqual(before);
  });

  it('rebuilds the same rows from the log', async () => {
    const snapshot = async () =>
      (await t.runtime.db.query(
        `SELECT p.*, (SELECT array_agg(network::text ORDER BY network) FROM partner_source_networks n WHERE n.partner_id = p.partner_id) AS networks,
           (SELECT array_agg(event_name || '=' || goal_event ORDER BY event_name) FROM partner_goal_mappings m WHERE m.partner_id = p.partner_id) AS goals
         FROM partners p ORDER BY partner_id`,
      )).rows;
    const before = await snapshot();
    await projection.stop();
    await replayProjection(t.runtime.db, t.runtime.eventLog, partnersProjection);
    expect(await snapshot()).toEqual(before);
    projection = await startProjection(partnersProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog });
  });
});
