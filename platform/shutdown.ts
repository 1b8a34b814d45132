import { ExitCode } from './startup.js';

/** How long a process's closing steps may take once it has stopped taking work. */
const SHUTDOWN_STEPS_MS = 10_000;

export type ShutdownStep = readonly [name: string, run: () => Promise<unknown>];

/**
 * Runs a process's closing steps in order, then exits 0. A step still waiting after `ms` (all
 * steps together) is given up on: the process says which and exits 4 (a backend did not answer).
 * Closing the event log flushes and disconnects the Kafka client, which waits for as long as a
 * hung broker hangs: the API and the projector outlived SIGTERM by minutes, until the orchestrator
 * killed them. Nothing acknowledged waits on these steps (an append is answered once the log has
 * it; a projection commits its offsets with its rows), so leaving them loses nothing.
 */
export async function shutDownWithin(steps: readonly ShutdownStep[], log: (line: string) => void, ms = SHUTDOWN_STEPS_MS): Promise<never> {
  let current = 'the first step';
  const giveUp = setTimeout(() => {
    log(`shutdown: ${current} did not finish within ${ms / 1000} s; exiting without it (everything acknowledged is already in the log and the read models)`);
    process.exit(ExitCode.unavailable);
  }, ms);
  for (const [name, run] of steps) {
    current = name;
    await run();
  }
  clearTimeout(giveUp);
  // The last line of a clean stop, so whoever watches the log knows the process is gone.
  log('stopped');
  process.exit(ExitCode.ok);
}
