import type { Runtime } from '../../platform/runtime.js';
import { mintLinkCodes } from './serve.js';

/**
 * Link codes minted, checked and claimed ahead, so a request that serves cards takes its codes
 * from memory instead of asking the database first. A code is claimed when it enters the reserve
 * (mintLinkCodes), so no other process hands it out; codes older than `maxAgeMs` are dropped
 * unused, well within a claim's lifetime (CLAIM_TTL_SECONDS), and so that an operator's freshly
 * registered short code is seen within as short a window as one request's.
 */
export interface LinkCodeReserve {
  /** `count` fresh codes, each handed out once. */
  take(count: number): Promise<string[]>;
}

export interface LinkCodeReserveOptions {
  /** Codes checked per refill (one round of two set reads). */
  batch?: number;
  maxAgeMs?: number;
  now?: () => number;
}

export function linkCodeReserve(runtime: Pick<Runtime, 'db'>, options: LinkCodeReserveOptions = {}): LinkCodeReserve {
  const batch = options.batch ?? 256;
  const maxAgeMs = options.maxAgeMs ?? 2_000;
  const now = options.now ?? Date.now;
  let codes: string[] = [];
  let checkedAt = 0;
  /** One refill at a time: takers that find the reserve short wait for it together. */
  let refilling: Promise<void> | undefined;

  const refill = (needed: number) =>
    (refilling ??= (async () => {
      try {
        const started = now();
        const fresh = await mintLinkCodes(runtime, Math.max(batch, needed));
        codes = fresh;
        checkedAt = started;
      } finally {
        refilling = undefined;
      }
    })());

  return {
    async take(count) {
      if (count === 0) return [];
      if (now() - checkedAt > maxAgeMs) codes = [];
      // Another taker may empty a refill first: then refill again.
      while (codes.length < count) await refill(count);
      return codes.splice(0, count);
    },
  };
}
