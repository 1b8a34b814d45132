import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime } from '../../platform/runtime.js';
import { startServiceProcess } from '../support/child-process.js';
import { ownLines, runCli } from '../support/cli.js';
import { embeddedOwners } from '../support/embedded-owner.js';
import { freePort } from '../support/stack.js';

const owners = embeddedOwners('offer-ledger-replay-stop-');

/** Seeding, a start on a seeded folder and a replay: each a process with its own embedded Postgres. */
const PROCESS_TESTS_MS = 300_000;

/**
 * `npm run replay` on the embedded default runs in the service that owns DATA_DIR. A SIGTERM to
 * the service while it replays stops the replay (the service's shutdown), and the CLI says that
 * the service stopped it and that nothing was left (exit 4: run it again once the service is
 * back), not that the service stopped answering and schemas may be left behind. The job's own
 * socket-level rules are in owner-jobs-shutdown.int.spec.ts; this is the service's own order of
 * shutdown steps, on real processes.
 */
describe('the service that owns DATA_DIR stopped during a replay it runs for the CLI', () => {
  it('stops the replay; the CLI exits 4 saying the service stopped it before the swap, and no replay schema is left', async () => {
    const env = { DATA_DIR: owners.dataDir(), LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '0' };
    // Enough events (about 40,000) that the replay is still under way when the service is stopped.
    const seeded = await runCli('services/admin/seed/main.ts', ['--offers', '100', '--serves', '30000'], env, 180_000);
    expect(seeded.status, seeded.stderr).toBe(0);
    const service = await owners.startApi(env, await freePort());

    const replaying = startServiceProcess('services/replay/cli.ts', env, ['--all']);
    // Its first bar: the service runs the replay and has not applied every event. Not a later
    // one: off a terminal the bar is printed every five seconds, and on a quiet machine the events
    // are all applied sooner than that (the indexes and the comparison still take seconds).
    await replaying.waitForLine((line) => {
      const bar = /^rebuilding .*\| (\d+)\/(\d+) events/.exec(line);
      return bar !== null && Number(bar[1]) < Number(bar[2]);
    }, 120_000);
    expect(await service.stop('SIGTERM')).toBe(0);

    expect(await replaying.exited).toBe(4);
    expect(ownLines(replaying.output()).at(-1)).toBe(
      'error: the replay was stopped: the service stopped before the swap: nothing was swapped and its replay schemas were dropped; run it again once the service is back',
    );
    expect(service.output()).toMatch(/shutdown: the replay \S+ ended cancelled: the service stopped before the swap/);

    const runtime = await openRuntime(loadConfig(env), { role: 'tool', redis: false });
    try {
      const { rows } = await runtime.db.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'replay\\_%'");
      expect(rows).toEqual([]);
    } finally {
      await runtime.close();
    }
  }, PROCESS_TESTS_MS);
});
