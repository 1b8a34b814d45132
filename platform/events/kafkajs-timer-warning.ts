/**
 * kafkajs 2.2.4 sets a timer at a negative delay on every connection: its request queue starts
 * with `throttledUntil` = -1 and schedules its next check at that minus now (kafkajs issue 1751).
 * Node has always run such a timer after 1 ms; Node 24 also prints a TimeoutNegativeWarning for
 * each, into the service's stderr and every CLI's output. Only those warnings are dropped, told
 * apart by the kafkajs frame in their stack; every other warning prints as Node prints it.
 */
export function isKafkajsNegativeTimeout(warning: Error): boolean {
  return warning.name === 'TimeoutNegativeWarning' && /[\\/]kafkajs[\\/]/.test(warning.stack ?? '');
}

let dropping = false;

/** Wraps the process's warning printers (Node's own among them) so they skip kafkajs' negative timers. Idempotent. */
export function dropKafkajsNegativeTimeoutWarnings(): void {
  if (dropping) return;
  dropping = true;
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  for (const print of printers) {
    process.on('warning', (warning) => {
      if (!isKafkajsNegativeTimeout(warning)) print(warning);
    });
  }
}
