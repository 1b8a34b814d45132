import { readdirSync, readFileSync } from 'node:fs';
import { processCpuSeconds } from './server.js';

/** Where a process's CPU is counted: a named process of the bench, or the backend it is. */
type Role = string;

/**
 * CPU seconds used so far by every process on the machine, summed by role: the named pids
 * (the API, the projector), Postgres (every `postgres` process: its backends do the queries),
 * the Kafka broker and the schema registry (the `java` processes, told apart by the registry's
 * Quarkus settings), this bench itself (its load generator), and the rest. From /proc (Linux).
 * Postgres and Kafka serve whatever else runs on the machine too: the split is the service's
 * only on a machine that runs nothing else.
 */
function cpuByRole(named: Record<Role, number | undefined>): Map<Role, number> {
  const roleOfPid = new Map(Object.entries(named).flatMap(([role, pid]) => (pid === undefined ? [] : [[pid, role] as const])));
  const totals = new Map<Role, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    let role: Role;
    let seconds: number;
    try {
      seconds = processCpuSeconds(pid);
      role = roleOfPid.get(pid) ?? (pid === process.pid ? 'bench client' : roleOfProcess(pid));
    } catch {
      continue; // Gone meanwhile.
    }
    totals.set(role, (totals.get(role) ?? 0) + seconds);
  }
  return totals;
}

/** By the program's name (comm: Postgres rewrites its backends' command lines, not their name). */
function roleOfProcess(pid: number): Role {
  const program = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  if (program === 'postgres') return 'postgres';
  if (program !== 'java') return 'other';
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('quarkus') ? 'registry' : 'kafka';
}

/**
 * Starts counting; the returned function gives each role's CPU microseconds per unit of work
 * (`per`: postbacks answered) since then, and the service's total: the named processes and the
 * backends, not the bench client that loads them nor the machine's other processes (shown apart).
 * Processes started meanwhile count from zero; ones that ended meanwhile are missed (their share
 * is small: pools keep their connections).
 */
export function cpuSplit(named: Record<Role, number | undefined>): (per: number) => Record<string, number> {
  const before = cpuByRole(named);
  return (per) => {
    const after = cpuByRole(named);
    const perUnit = (role: Role) => Math.round((Math.max(0, (after.get(role) ?? 0) - (before.get(role) ?? 0)) * 1e6) / Math.max(1, per));
    const service = [...Object.keys(named), 'postgres', 'kafka', 'registry'];
    const columns: Record<string, number> = {};
    for (const role of service) columns[`cpu_us_${role}`] = perUnit(role);
    columns.cpu_us_service = service.reduce((sum, role) => sum + columns[`cpu_us_${role}`]!, 0);
    columns.cpu_us_bench_client = perUnit('bench client');
    columns.cpu_us_other = perUnit('other');
    return columns;
  };
}
