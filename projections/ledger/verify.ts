import type { Sql } from '../../platform/db/db.js';
import { hasSqlState, SQLSTATE } from '../../platform/db/sqlstate.js';
import { ExitCode } from '../../platform/startup.js';
import { GENESIS_HASH, chainHash, chainHashV1 } from './chain.js';
import { postbackFingerprint } from '../../commands/postbacks/identity.js';
import type { PostbackFields } from '../../commands/postbacks/fields.js';
import { conversionsOffChain, decisionPartitions, decisionsAfter, type StoredDecision } from './queries.js';

export interface ChainBreak {
  partition: number;
  offset: string;
  correlation_id: string;
  problem: string;
}

export interface VerifyReport {
  partitions: { partition: number; decisions: number; head: string }[];
  /** The first broken decision of each partition whose chain breaks. */
  breaks: ChainBreak[];
  /** Ledger rows that no longer match the decision that recorded them. */
  conversionsOffChain: { partner_id: string; identity_key: string; correlation_id: string }[];
}

const PAGE = 5_000;

/**
 * The fingerprint of what a stored decision says was reported. The fingerprint is in the chained
 * hash, so a reported field changed in the table shows here, though the hash does not cover it.
 */
function reportedFingerprint(row: StoredDecision): string {
  const present = Object.entries(row.reported).filter(([, value]) => value !== null);
  return postbackFingerprint(Object.fromEntries(present) as unknown as PostbackFields);
}

/** What is wrong with a stored decision that follows `previous` in its partition, if anything. */
function problemOf(row: StoredDecision, previous: string): string | undefined {
  if (row.prev_hash !== previous) {
    return `prev_hash ${row.prev_hash.slice(0, 12)}… does not follow the previous decision (${previous.slice(0, 12)}…): a decision before it was removed, inserted or changed`;
  }
  if (chainHash(previous, row) !== row.hash || !row.received_at_whole_ms) {
    if (row.received_at_whole_ms && chainHashV1(previous, row) === row.hash) {
      return 'its hash is of an earlier version, which did not cover the application, attribution, channel, source address and identity kind: rebuild the ledger from the log (npm run replay -- --projection ledger --swap), then verify again';
    }
    return 'its hash does not match its fields: the decision was changed after it was written';
  }
  if (reportedFingerprint(row) !== row.fingerprint) {
    return 'what it says the partner reported (event, amount, currency, identity, attribution ids) does not match its fingerprint: changed after it was written';
  }
  return undefined;
}

/**
 * Recomputes every partition's hash chain from the stored decisions, in log order, and names the
 * first row of each partition that breaks it (a changed field, a removed or inserted row); then
 * checks that every ledger row still agrees with the decision that recorded it.
 */
export async function verifyLedger(sql: Sql, progress: (partition: number, decisions: number) => void = () => {}): Promise<VerifyReport> {
  const report: VerifyReport = { partitions: [], breaks: [], conversionsOffChain: [] };
  for (const partition of await decisionPartitions(sql)) {
    let previous = GENESIS_HASH;
    let after = '-1';
    let count = 0;
    let broken: ChainBreak | undefined;
    for (;;) {
      const page = await decisionsAfter(sql, partition, after, PAGE);
      for (const row of page) {
        count += 1;
        if (!broken) {
          const problem = problemOf(row, previous);
          if (problem) broken = { partition, offset: row.log_offset, correlation_id: row.correlation_id, problem };
        }
        // Followed past a break too, so the head printed is where the partition ends.
        previous = row.hash;
      }
      progress(partition, count);
      if (page.length < PAGE) break;
      after = page[page.length - 1]!.log_offset;
    }
    report.partitions.push({ partition, decisions: count, head: previous });
    if (broken) report.breaks.push(broken);
  }
  report.conversionsOffChain = await conversionsOffChain(sql, 100);
  return report;
}

/**
 * A verification that stopped partway: no ledger tables to verify (exit 2), the database gone or
 * failing under it (exit 4, as one unavailable at the start), anything else (exit 1).
 */
export function verifyFailure(error: unknown): [exitCode: number, nextStep: string] {
  if (hasSqlState(error, SQLSTATE.undefinedTable)) return [ExitCode.invalidInput, 'nothing to verify here: this database has no ledger (check DATABASE_URL or DATA_DIR)'];
  if (error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError) return [ExitCode.failure, 'nothing was changed'];
  return [ExitCode.unavailable, 'the database failed while it was read: check it (DATABASE_URL, or the embedded one in DATA_DIR) and run it again; nothing was changed'];
}
