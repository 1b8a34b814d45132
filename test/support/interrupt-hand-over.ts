import { exitOnInterruptWhileLoading, onInterrupt } from '../../platform/cli/on-interrupt.js';

/**
 * A command's start as the replay and export entry points go through it, with a Ctrl-C that
 * arrives while the process is busy handing over: the signal is raised before the hand-over, in
 * the same tick, so Node can give it to a listener only once the hand-over is done. The command
 * must hear it (exit 130 with its line).
 */
const handOver = exitOnInterruptWhileLoading(() => 'interrupted while loading');
process.kill(process.pid, 'SIGINT');
handOver(() => onInterrupt(() => 'interrupted: heard by the command'));
// Ends a run whose signal went unheard, which would otherwise wait for nothing (one heard exits 130 at once).
setTimeout(() => {
  process.stdout.write('the signal went unheard\n');
  process.exit(0);
}, 10_000);
