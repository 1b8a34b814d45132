import { exitOnInterruptWhileLoading } from '../../platform/cli/on-interrupt.js';
import { reportUnexpectedFailures } from '../../platform/cli/unexpected-failure.js';

if (import.meta.url === `file://${process.argv[1]}`) {
  reportUnexpectedFailures();
  // Heard before the command loads: nothing has been created yet.
  const loaded = exitOnInterruptWhileLoading((signal) => `replay interrupted (${signal}) before it started: it created nothing`);
  const { buildReplayCli } = await import('./command.js');
  await buildReplayCli(loaded).parseAsync(process.argv);
}
