import type { Projection } from '../../platform/projection/projection.js';
import type { Runtime } from '../../platform/runtime.js';

/**
 * For unit tests of waits on the read models: a runtime whose log never says where it ends (a
 * hung broker) while every read model counts as applied, and the accounts projection to wait for.
 */
export function hungLog(): { runtime: Runtime; accounts: Projection } {
  return {
    runtime: {
      watermarks: async () => ({ awaitApplied: async () => true }),
      eventLog: { endOffsets: () => new Promise(() => {}) },
      // One process with its database to itself (embedded): its queue alone orders commands.
      db: { engine: 'pglite' },
    } as unknown as Runtime,
    accounts: { name: 'accounts', topics: ['accounts'] } as unknown as Projection,
  };
}
