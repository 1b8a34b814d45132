import { PAST_DEADLINE, withinDeadline } from '../async/deadline.js';
import type { Db } from '../db/db.js';
import type { TopicPartitionOffset } from '../events/event-log.js';
import { APPLIED_CHANNEL, storedOffsets, SWAPPED_PAYLOAD, type AppliedPosition, type PositionsReset } from './offsets.js';

export interface Watermarks {
  /**
   * Resolves true once `projection` has applied every listed event (offsets of appended events),
   * false when `timeoutMs` passes first: a caller answers "retry" then, never a stale read.
   * Woken by the projectors' commits (NOTIFY), in this process or any other.
   */
  awaitApplied(projection: string, events: TopicPartitionOffset[], timeoutMs: number): Promise<boolean>;
  /**
   * Calls `listener` on every projector commit this process hears of (undefined: commits may have
   * been missed, or read models were swapped into place; `reset` says which), before any
   * awaitApplied it satisfies resolves. A cache cleared here is current for whoever waited for
   * the commit. Returns the function that unsubscribes.
   */
  onApplied(listener: (position: AppliedPosition | undefined, reset?: PositionsReset) => void): () => void;
  /**
   * False from a drop of the listening session until it is open again: a commit meanwhile is not
   * heard, so a cache must not keep what it reads then (the reopening empties it, not what it
   * read after that).
   */
  hearing(): boolean;
  close(): Promise<void>;
}

const key = (projection: string, topic: string, partition: number) => `${projection}\u0000${topic}\u0000${partition}`;

export async function openWatermarks(db: Db): Promise<Watermarks> {
  const applied = new Map<string, bigint>();
  const waiters = new Set<() => void>();
  const listeners = new Set<(position: AppliedPosition | undefined, reset?: PositionsReset) => void>();
  /** Projections whose positions must be read from the table (first use, or notifications missed). */
  const unread = new Set<string>();
  let everRead = new Set<string>();
  let hearing = true;

  const advance = (position: AppliedPosition) => {
    const at = key(position.projection, position.topic, position.partition);
    const next = BigInt(position.next);
    if ((applied.get(at) ?? -1n) < next) applied.set(at, next);
  };
  const wakeAll = () => {
    for (const wake of waiters) wake();
  };
  const unlisten = await db.listen(APPLIED_CHANNEL, (payload) => {
    const reset: PositionsReset | undefined = payload === '' ? 'gap' : payload === SWAPPED_PAYLOAD ? 'swap' : undefined;
    const position = reset ? undefined : (JSON.parse(payload) as AppliedPosition);
    if (position) {
      advance(position);
    } else {
      // Possibly missed commits, or swapped read models: read every known projection's positions again.
      for (const projection of everRead) unread.add(projection);
      everRead = new Set();
    }
    for (const listener of listeners) listener(position, reset);
    wakeAll();
  }, (heard) => (hearing = heard));

  async function refresh(projection: string) {
    for (const stored of await storedOffsets(db, projection)) {
      advance({ projection, topic: stored.topic, partition: stored.partition, next: stored.offset });
    }
    everRead.add(projection);
    unread.delete(projection);
  }

  const satisfied = (projection: string, events: TopicPartitionOffset[]) =>
    events.every((event) => (applied.get(key(projection, event.topic, event.partition)) ?? 0n) > BigInt(event.offset));

  return {
    async awaitApplied(projection, events, timeoutMs) {
      if (satisfied(projection, events)) return true;
      // Monotonic: a step of the wall clock during the read must not change the time left.
      const startedAt = performance.now();
      // Listening already, so a commit after this read is not missed. The read counts against
      // the timeout: a Postgres whose sessions hang would otherwise hold the caller past it.
      if ((!everRead.has(projection) || unread.has(projection)) && (await withinDeadline(refresh(projection), timeoutMs)) === PAST_DEADLINE) return false;
      if (satisfied(projection, events)) return true;
      const left = Math.max(0, timeoutMs - (performance.now() - startedAt));
      return new Promise<boolean>((resolve) => {
        const done = (result: boolean) => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(result);
        };
        const check = () => {
          if (unread.has(projection)) {
            void refresh(projection).then(check, () => {});
            return;
          }
          if (satisfied(projection, events)) done(true);
        };
        const timer = setTimeout(() => done(false), left);
        waiters.add(check);
      });
    },
    onApplied(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    hearing: () => hearing,
    async close() {
      listeners.clear();
      for (const wake of waiters) wake();
      await unlisten();
    },
  };
}
