import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCommands } from '../../commands/index.js';
import { ADVISORY_LOCK_KEYS } from '../../platform/db/advisory-locks.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { accountsProjection } from '../../projections/accounts/projection.js';
import { findDeveloperByEmail } from '../../projections/accounts/queries.js';
import { commandExecutor } from '../../services/admin/command-executor.js';
import { COMMAND_NOT_STARTED_ELSEWHERE } from '../../services/admin/command-turn.js';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { startServiceProcess } from '../support/child-process.js';

/**
 * An API process paused (SIGSTOP, a long GC, a frozen VM) in the middle of an admin command holds
 * the database's admin-command lock for as long as it stays paused: its session is open and idle
 * in its transaction. Another process's command must not be refused for that long: it ends the
 * stalled holder's session once that holder's turn has lasted longer than any turn of a running
 * process can, and runs. The stalled holder, continued, must then not append what it had checked
 * under its lost turn: here both register the same email, which would be registered twice.
 */
describe('an admin command whose turn a paused process holds', () => {
  // Short turns, agreed on by both processes, so the test does not wait the default 30 s.
  const TURN_LIMIT_MS = 8_000;
  let t: TestRuntime;
  let accounts: RunningProjection;

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
    accounts = await startProjection(accountsProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog, metrics: t.runtime.metrics });
  });
  afterAll(async () => {
    await accounts?.stop();
    await t?.close();
  });

  const register = adminCommands.find((command) => command.name === 'developer:register')!;
  const input = { name: 'Twice', email: 'twice@stalled-holder.test' };

  it('runs once the paused holder has held its turn too long; the holder, continued, appends nothing', async () => {
    const env = { ...testEnvironment(t.database, t.topicPrefix, { eventLog: 'kafka' }), TURN_LIMIT_MS: String(TURN_LIMIT_MS) };
    const holder = startServiceProcess('test/support/stalled-command-holder.ts', env, [JSON.stringify(input)]);
    // It checked the email (not registered yet) under its turn and stopped before appending.
    await holder.waitForLine((line) => line === 'stopping');

    const commands = commandExecutor(t.runtime, { projections: [accountsProjection], catchUpTimeoutMs: 20_000, executeTimeoutMs: 2_000, appliedTimeoutMs: 2_000, turnLimitMs: TURN_LIMIT_MS });
    const registered = await commands.run(register, input);
    expect(registered).toMatchObject({ developer_id: expect.any(String) });
    expect((await findDeveloperByEmail(t.runtime.db, input.email))?.developer_id).toBe(registered.developer_id);

    holder.child.kill('SIGCONT');
    const appended = await holder.waitForLine((line) => line.startsWith('append '));
    expect(appended).toMatch(/^append refused: .*nothing was written/);
    expect(await holder.exited).toBe(0);
    // One registration in the log: the continued holder's never reached it.
    const ends = await t.runtime.eventLog.endOffsets('accounts');
    expect(ends.reduce((sum, end) => sum + Number(end.offset), 0)).toBe(1);
  }, 90_000);

  it('leaves a holder of the lock that is not a command alone, and refuses the command saying so', async () => {
    // An operator's session holding the lock (keeping commands out by hand).
    const operator = new pg.Client({ connectionString: t.database.url });
    await operator.connect();
    try {
      await operator.query('BEGIN');
      await operator.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCK_KEYS.adminCommands]);
      // It waits a whole turn limit, after which a command's turn would count as stalled.
      const commands = commandExecutor(t.runtime, { projections: [accountsProjection], catchUpTimeoutMs: 6_000, executeTimeoutMs: 1_000, appliedTimeoutMs: 1_000, turnLimitMs: 4_000 });
      await expect(commands.run(register, { name: 'Kept out', email: 'kept-out@stalled-holder.test' })).rejects.toMatchObject({ code: 'COMMAND_UNAVAILABLE', message: COMMAND_NOT_STARTED_ELSEWHERE });
      // Its session is still there: the transaction commits.
      await operator.query('COMMIT');
    } finally {
      await operator.end();
    }
  }, 90_000);
});
