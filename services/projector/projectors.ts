import { accountsProjection } from '../../projections/accounts/projection.js';
import { catalogEntriesProjection } from '../../projections/catalog-entries/projection.js';
import { clicksProjection } from '../../projections/clicks/projection.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { partnerOfferProjections } from '../../projections/offers/projections.js';
import { startAll } from '../../platform/async/start-all.js';
import type { Projection } from '../../platform/projection/projection.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import type { Runtime } from '../../platform/runtime.js';

/** Every read model this build maintains. */
export const projections: Projection[] = [catalogEntriesProjection, ...partnerOfferProjections, accountsProjection, servesProjection, clicksProjection, ledgerProjection];

export interface ProjectorHooks {
  onBatchApplied?(projection: string, topic: string, partition: number, lastOffset: string, applied: number): void;
  onError?(projection: string, error: Error): void;
}

export interface RunningProjectors {
  running: RunningProjection[];
  /** Total events not yet applied across every projection. */
  totalLag(): Promise<number>;
  /** Events not yet applied, per projection. */
  lagByProjection(): Promise<Map<string, number>>;
  stop(): Promise<void>;
}

export async function startProjectors(runtime: Runtime, hooks: ProjectorHooks = {}, only: readonly Projection[] = projections): Promise<RunningProjectors> {
  // Side by side: on Kafka each joins its own consumer group, and after a crash every join waits
  // out the dead member's session; one after another, those waits would add up.
  const running = await startAll(
    only.map((projection) => () =>
      startProjection(projection, {
        db: runtime.db,
        eventLog: runtime.eventLog,
        metrics: runtime.metrics,
        onBatchApplied: (name, batch, applied) =>
          hooks.onBatchApplied?.(name, batch.topic, batch.partition, batch.events[batch.events.length - 1]!.offset, applied),
        onError: hooks.onError,
      }),
    ),
  );
  const refreshLag = async () => {
    await Promise.all(running.map((projection) => projection.lag()));
  };
  runtime.metrics.beforeScrape.push(refreshLag);
  const lagByProjection = async () =>
    new Map(await Promise.all(running.map(async (projection) => [projection.name, (await projection.lag()).reduce((sum, partition) => sum + partition.lag, 0)] as const)));
  return {
    running,
    totalLag: async () => [...(await lagByProjection()).values()].reduce((sum, lag) => sum + lag, 0),
    lagByProjection,
    async stop() {
      runtime.metrics.beforeScrape.splice(runtime.metrics.beforeScrape.indexOf(refreshLag), 1);
      await Promise.all(running.map((projection) => projection.stop()));
    },
  };
}
