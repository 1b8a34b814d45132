/**
 * Every Postgres advisory lock key the service takes, in one place: two uses sharing a key wait
 * on each other for no reason (a catalog load held every admin command's turn while it ran).
 * Each is taken with pg_advisory_xact_lock (or its try_ form) inside a transaction.
 */
export const ADVISORY_LOCK_KEYS = {
  /** Migrations: concurrent start-ups migrate one at a time. */
  migrations: 7_311_992,
  /** Admin commands of every process (APIs, the admin CLI) take turns. */
  adminCommands: 7_311_993,
  /** One `npm run seed` per database. */
  seed: 7_311_994,
  /** FULL catalog loads (two processes starting with the same new file). */
  fullCatalogLoad: 7_311_995,
  /** LEGACY registry rebuilds. */
  legacyRegistryBuild: 7_311_996,
} as const;

/**
 * The pids of the sessions holding the advisory lock whose key is $1, in this database (each
 * database has its own): the keys above are taken as one bigint, which pg_locks splits in two.
 */
export const ADVISORY_LOCK_HOLDERS = `SELECT pid FROM pg_locks
  WHERE locktype = 'advisory' AND granted AND objsubid = 1
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND ((classid::bigint << 32) | objid::bigint) = $1::bigint`;
