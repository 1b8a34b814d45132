/**
 * Verified chains of the FULL catalog (pure; see ARCHITECTURE "FULL chains, precisely").
 *
 * A record's source parent is verified when it exists in the file, is active, and the edge does not
 * close a cycle. Among active records, "parent exists and is active" gives each record at most one
 * outgoing edge, so every cycle is a ring that trees may hang into; the ring's own edges are the
 * ones that close it and are dropped, the edges into the ring stay. What remains is a forest.
 * The chain of a record runs up its tree: COMPLETE when the top has no source parent, otherwise
 * UNRESOLVED_SOURCE_PARENT at the top's raw parent (which is never added to the path; the only way
 * it can appear there is a record that names itself as its parent).
 */
export interface SourceRecord {
  id: string;
  /** Raw Parent ID; null when the source field is empty. */
  parentId: string | null;
  active: boolean;
}

export type ChainStatus = 'COMPLETE' | 'UNRESOLVED_SOURCE_PARENT';

export interface Chain {
  id: string;
  parentId: string | null;
  status: ChainStatus;
  unresolvedParentId: string | null;
  /** Verified chain root-to-self; its length is the hierarchy precision. */
  pathIds: string[];
}

/** Chains of every active record, in input order. Iterative: deep chains and long rings are fine. */
export function computeChains(records: readonly SourceRecord[]): Chain[] {
  const indexOf = new Map<string, number>();
  records.forEach((record, index) => indexOf.set(record.id, index));

  // Candidate edge: parent exists and both ends are active (-1: none).
  const candidate = records.map((record) => {
    if (!record.active || record.parentId === null) return -1;
    const parent = indexOf.get(record.parentId);
    return parent !== undefined && records[parent]!.active ? parent : -1;
  });

  const onRing = findRingMembers(candidate);
  const verified = candidate.map((parent, index) => (onRing[index] ? -1 : parent));

  const paths: (string[] | undefined)[] = new Array(records.length);
  const tops = new Int32Array(records.length).fill(-1);
  const chains: Chain[] = [];
  for (let start = 0; start < records.length; start++) {
    if (!records[start]!.active) continue;
    // Climb to the first record whose path is known (or to the top), then fill paths downward.
    const pending: number[] = [];
    let node = start;
    while (paths[node] === undefined) {
      pending.push(node);
      const parent = verified[node]!;
      if (parent === -1) break;
      node = parent;
    }
    for (let i = pending.length - 1; i >= 0; i--) {
      const current = pending[i]!;
      const parent = verified[current]!;
      paths[current] = parent === -1 ? [records[current]!.id] : [...paths[parent]!, records[current]!.id];
      tops[current] = parent === -1 ? current : tops[parent]!;
    }
    const top = records[tops[start]!]!;
    const record = records[start]!;
    chains.push({
      id: record.id,
      parentId: verified[start] === -1 ? null : records[verified[start]!]!.id,
      status: top.parentId === null ? 'COMPLETE' : 'UNRESOLVED_SOURCE_PARENT',
      unresolvedParentId: top.parentId,
      pathIds: paths[start]!,
    });
  }
  return chains;
}

/** Members of the rings of a functional graph (next[i] = -1 when i has no edge). */
function findRingMembers(next: readonly number[]): boolean[] {
  const state = new Uint8Array(next.length); // 0 unseen, 1 on the current walk, 2 done
  const onRing = new Array<boolean>(next.length).fill(false);
  for (let start = 0; start < next.length; start++) {
    if (state[start] !== 0) continue;
    const walk: number[] = [];
    let node = start;
    while (node !== -1 && state[node] === 0) {
      state[node] = 1;
      walk.push(node);
      node = next[node]!;
    }
    // Reaching a node of this walk again means the walk closed a ring from that node on.
    if (node !== -1 && state[node] === 1) {
      for (let i = walk.indexOf(node); i < walk.length; i++) onRing[walk[i]!] = true;
    }
    for (const visited of walk) state[visited] = 2;
  }
  return onRing;
}
