import { exitOnInterruptWhileLoading } from '../../platform/cli/on-interrupt.js';
import { reportUnexpectedFailures } from '../../platform/cli/unexpected-failure.js';

if (import.meta.url === `file://${process.argv[1]}`) {
  reportUnexpectedFailures();
  // Heard before the command loads: no file has been opened yet.
  const loaded = exitOnInterruptWhileLoading((signal) => `export interrupted (${signal}) before it started: it wrote nothing`);
  const { buildExportCli } = await import('./command.js');
  await buildExportCli(loaded).parseAsync(process.argv);
}
