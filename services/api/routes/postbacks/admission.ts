import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../../../../platform/metrics/metrics.js';

/** How often a process that keeps refusing says so in its log: one line, with the count, per window. */
const LOG_WINDOW_MS = 10_000;

/** A postback admitted: released once its answer is done and its intake (if it started) has ended. */
export interface AdmittedPostback {
  /** Runs the intake while holding the slot: a client that gives up does not free the work it left. */
  hold<T>(work: () => Promise<T>): Promise<T>;
  /** The answer is sent, or its connection is gone. */
  answered(): void;
}

export interface PostbackAdmission {
  /** A slot for one postback, or undefined when `limit` are under way (the caller answers 503 at once). */
  admit(): AdmittedPostback | undefined;
  readonly inFlight: number;
  close(): void;
}

/**
 * Admission of postbacks into the intake: at most `limit` under way in this process. Past its
 * capacity (a postback costs the process CPU in every step: parsing, reads, the append, the
 * decision) every admitted postback slows the others, and without a limit the answers came after
 * 8 to 24 s, past partners' timeouts, whose retries added more. A refusal (before the body is
 * read: no reads, no append) costs a fraction of an intake and is answered at once, so admitted
 * postbacks keep their pace and refused ones are retried. Refusals are counted
 * (postback_overload_refusals_total) and logged once per window.
 */
export function postbackAdmission(limit: number, metrics: Metrics, log: () => FastifyBaseLogger): PostbackAdmission {
  let inFlight = 0;
  let refusedInWindow = 0;
  let window: NodeJS.Timeout | undefined;
  const closeWindow = () => {
    window = undefined;
    if (refusedInWindow === 0) return;
    log().warn({ refused: refusedInWindow, limit }, `postbacks refused at capacity in the last ${LOG_WINDOW_MS / 1000} s: ${refusedInWindow} (503 postback_v10_unavailable, nothing logged; POSTBACK_MAX_IN_FLIGHT=${limit})`);
    refusedInWindow = 0;
    window = setTimeout(closeWindow, LOG_WINDOW_MS).unref();
  };
  const refuse = () => {
    metrics.postbackOverloadRefusals.inc();
    if (window) {
      refusedInWindow += 1;
      return;
    }
    log().warn({ limit }, `postbacks refused at capacity: ${limit} are under way (503 postback_v10_unavailable, nothing logged; POSTBACK_MAX_IN_FLIGHT=${limit}); counted in postback_overload_refusals_total, said here once per ${LOG_WINDOW_MS / 1000} s`);
    window = setTimeout(closeWindow, LOG_WINDOW_MS).unref();
  };
  return {
    admit() {
      if (inFlight >= limit) {
        refuse();
        return undefined;
      }
      inFlight += 1;
      metrics.postbacksInFlight.set(inFlight);
      // The answer holds the slot, and so does the intake while it runs.
      let holders = 1;
      const letGo = () => {
        holders -= 1;
        if (holders > 0) return;
        inFlight -= 1;
        metrics.postbacksInFlight.set(inFlight);
      };
      let answered = false;
      return {
        async hold(work) {
          holders += 1;
          try {
            return await work();
          } finally {
            letGo();
          }
        },
        answered() {
          if (answered) return;
          answered = true;
          letGo();
        },
      };
    },
    get inFlight() {
      return inFlight;
    },
    close() {
      clearTimeout(window);
      window = undefined;
    },
  };
}
