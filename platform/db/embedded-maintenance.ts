import type { Sql } from './db.js';

/**
 * The embedded engine is Postgres in this process without its background workers. With no
 * checkpointer, the write-ahead log grew for as long as the service ran (gigabytes a day under
 * load, all of it replayed by crash recovery); with no autovacuum, tables that see deletes and
 * updates (link_code_claims, the projection offsets) grew without bound. This does their work on
 * timers: a CHECKPOINT every minute keeps pg_wal within max_wal_size, and a VACUUM every ten
 * minutes lets those tables reuse their space. Statements queue behind the engine's others.
 */
export interface EmbeddedMaintenance {
  /** Stops the timers and waits for a statement under way. */
  stop(): Promise<void>;
}

const CHECKPOINT_EVERY_MS = 60_000;
const VACUUM_EVERY_MS = 10 * 60_000;

export interface MaintenanceOptions {
  checkpointMs?: number;
  vacuumMs?: number;
  /** Failures and recoveries, one line each. */
  log?: (line: string) => void;
  /** Called after each statement that completed (a test waits on it rather than on the clock). */
  done?: (statement: 'CHECKPOINT' | 'VACUUM') => void;
}

export function maintainEmbeddedDatabase(sql: Sql, options: MaintenanceOptions = {}): EmbeddedMaintenance {
  let under = Promise.resolve();
  const failing = new Set<string>();
  // One at a time, each failure said once (a full disk fails them all) and its recovery too.
  const run = (statement: 'CHECKPOINT' | 'VACUUM') => {
    under = under.then(() => sql.query(statement)).then(
      () => {
        if (failing.delete(statement)) options.log?.(`embedded database: ${statement} works again`);
        options.done?.(statement);
      },
      (error: Error) => {
        if (failing.has(statement)) return;
        failing.add(statement);
        options.log?.(`embedded database: ${statement} failed (${error.message}); it is tried again on its timer`);
      },
    );
  };
  const timers = [
    setInterval(() => run('CHECKPOINT'), options.checkpointMs ?? CHECKPOINT_EVERY_MS).unref(),
    setInterval(() => run('VACUUM'), options.vacuumMs ?? VACUUM_EVERY_MS).unref(),
  ];
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await under;
    },
  };
}
