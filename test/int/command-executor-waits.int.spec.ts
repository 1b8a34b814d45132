import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCommands } from '../../commands/index.js';
import { appendEvents, newEvent } from '../../commands/append.js';
import { servedEvents } from '../../commands/serves/serve.js';
import { ReadModelsBehindError } from '../../platform/projection/catch-up.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { EventType } from '../../schemas/generated/events.js';
import { commandExecutor, type CommandExecutor } from '../../services/admin/command-executor.js';
import { projections } from '../../services/projector/projectors.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';

/**
 * An admin command waits for the read models of the topics it reads and writes, and no others:
 * with the serves read model held behind the log (its projector not running, a serve appended),
 * key, account and offer commands still answer, while a command that checks served cards
 * (link:register) says the read model is behind.
 */
describe('admin commands wait only for their own read models', () => {
  let t: TestRuntime;
  let running: RunningProjection[];
  let commands: CommandExecutor;
  const run = (name: string, input: Record<string, unknown>) => commands.run(adminCommands.find((command) => command.name === name)!, input);

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'sql' });
    const options = { db: t.runtime.db, eventLog: t.runtime.eventLog, metrics: t.runtime.metrics };
    running = await Promise.all(projections.filter((projection) => projection !== servesProjection).map((projection) => startProjection(projection, options)));
    commands = commandExecutor(t.runtime, { projections, catchUpTimeoutMs: 1_500 });
  });
  afterAll(async () => {
    await Promise.all(running?.map((projection) => projection.stop()) ?? []);
    await t?.close();
  });

  it('answers commands of other topics while the serves read model lags, and refuses one that reads served cards', async () => {
    const { developer_id } = await run('developer:register', { name: 'Lag', email: 'lag@waits.test' });
    const { application_id } = await run('application:register', { developer_id, name: 'app', status: 'live' });
    const { partner_id } = await run('partner:configure', { name: 'Shop' });
    const { offer_id } = await run('offer:upsert', { partner_id, kind: 'local', status: 'active', destination_url: 'https://shop.example/' });
    const [served] = servedEvents(
      { application_id: String(application_id), placement_id: null, environment: 'live', anonymous: false, location_id: null, offers: [{ offer_id: String(offer_id), destination_url: 'https://shop.example/' }] },
      { now: new Date(), linkBase: t.runtime.config.linkBase, codes: ['LagCode1'] },
    );
    await appendEvents(t.runtime, 'serves', [newEvent(EventType.OfferServed, served!.offer_instance_id, served!)]);

    // Each of these waited for every read model before, serves included, and failed after the timeout.
    expect(await run('api-key:issue', { application_id, kind: 'live' })).toMatchObject({ key: expect.stringMatching(/^svc_live_/) });
    expect(await run('offer:upsert', { offer_id, partner_id, kind: 'local', status: 'paused' })).toMatchObject({ offer_id });
    expect(await run('application:set-status', { application_id, status: 'paused' })).toMatchObject({ application_id });

    await expect(run('link:register', { offer_id, shape: 'short_code', code: 'LagLink2', target_url: 'https://shop.example/l', application_id })).rejects.toBeInstanceOf(ReadModelsBehindError);
  });
});

/**
 * Several processes on one Postgres (API processes, the admin CLI) take turns like one process's
 * commands: two executors stand for two processes (each has its own queue; the turn between them
 * is the database's lock). Conflicting commands sent to both at once: one passes its check, the
 * other sees the first one's events.
 */
describe('admin commands of several processes on one database', () => {
  let t: TestRuntime;
  let running: RunningProjection[];
  const executors: CommandExecutor[] = [];
  const command = (name: string) => adminCommands.find((candidate) => candidate.name === name)!;

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
    const options = { db: t.runtime.db, eventLog: t.runtime.eventLog, metrics: t.runtime.metrics };
    running = await Promise.all(projections.map((projection) => startProjection(projection, options)));
    executors.push(commandExecutor(t.runtime, { projections }), commandExecutor(t.runtime, { projections }));
  });
  afterAll(async () => {
    await Promise.all(running?.map((projection) => projection.stop()) ?? []);
    await t?.close();
  });

  it('register one email at most once, and never leave the default placement inactive', async () => {
    const both = (name: string, inputs: [Record<string, unknown>, Record<string, unknown>]) =>
      Promise.allSettled(executors.map((executor, index) => executor.run(command(name), inputs[index])));
    for (let round = 0; round < 4; round += 1) {
      const email = `race${round}@executors.test`;
      const registered = await both('developer:register', [{ name: 'A', email }, { name: 'B', email }]);
      expect(registered.filter((result) => result.status === 'fulfilled'), email).toHaveLength(1);
      expect(registered.find((result) => result.status === 'rejected')).toMatchObject({ reason: { field: 'email' } });
    }
    const { developer_id } = await executors[0]!.run(command('developer:register'), { name: 'Owner', email: 'owner@executors.test' });
    const { application_id } = await executors[0]!.run(command('application:register'), { developer_id, name: 'Default app', status: 'live' });
    for (let round = 0; round < 4; round += 1) {
      const { placement_id } = await executors[0]!.run(command('placement:create'), { application_id, name: `P${round}` });
      // Each refuses its half on its own: designating an inactive placement, deactivating the default one.
      const raced = await Promise.allSettled([
        executors[0]!.run(command('default-placement:designate'), { placement_id }),
        executors[1]!.run(command('placement:set-status'), { placement_id, status: 'inactive' }),
      ]);
      expect(raced.filter((result) => result.status === 'fulfilled'), `round ${round}`).toHaveLength(1);
    }
  });
});
