/**
 * A steady HTTP load of concurrent clients that retry like a partner's integration: each operation
 * is one request built once and sent again as is (same body, same identity) after a network error,
 * a timeout or a retryable status, with a growing pause, until it gets an answer that ends it or
 * its retry budget is spent. Tests wait on its progress (operations that succeeded, attempts that
 * failed), never on time.
 */
export interface LoadRequest {
  url: string;
  init: RequestInit;
}

export interface Attempt {
  /** The HTTP status, or undefined when the request got no answer (refused, reset, timed out). */
  status?: number;
  error?: string;
  /** A retried answer's JSON body (its reason, whether it said to retry). */
  body?: unknown;
}

export interface Operation {
  index: number;
  attempts: Attempt[];
  /** The final answer's status (undefined: no answer before the budget ran out). */
  status?: number;
  /** The final answer's JSON body (undefined when it had none). */
  body?: unknown;
  /** True when the budget ran out while the answers still said "retry". */
  gaveUp: boolean;
}

export interface LoadOptions {
  clients: number;
  /** Operation `index`'s request; its retries send the same one. */
  request(index: number): LoadRequest;
  /** Statuses worth another attempt; by default every 5xx. */
  retryable?(status: number): boolean;
  /** How long one operation keeps retrying, from its first attempt. */
  retryForMs?: number;
  /** Each attempt's own deadline: a request that hangs counts as a failed attempt. */
  attemptTimeoutMs?: number;
}

export interface Load {
  /** Operations that ended with a 2xx so far. */
  succeeded(): number;
  /** Attempts that failed (no answer, or a retryable status) so far. */
  failedAttempts(): number;
  /** Resolves once `count` more operations than now have ended with a 2xx. */
  moreSucceeded(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves once `count` more attempts than now have failed. */
  moreFailed(count: number, timeoutMs?: number): Promise<void>;
  /** Lets every operation under way finish (its retries included) and resolves with all of them, by index. */
  stop(): Promise<Operation[]>;
}

const is2xx = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

export function startLoad(options: LoadOptions): Load {
  const retryable = options.retryable ?? ((status: number) => status >= 500);
  const retryForMs = options.retryForMs ?? 60_000;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  const operations: Operation[] = [];
  const waiters = new Set<() => void>();
  let succeeded = 0;
  let failed = 0;
  let next = 0;
  let stopping = false;
  const wake = () => {
    for (const check of waiters) check();
  };

  async function attempt(request: LoadRequest): Promise<{ attempt: Attempt; body?: unknown }> {
    try {
      const response = await fetch(request.url, { ...request.init, signal: AbortSignal.timeout(attemptTimeoutMs) });
      const text = await response.text();
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      return { attempt: { status: response.status }, body };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      return { attempt: { error: cause ?? (error as Error).name } };
    }
  }

  async function operate(index: number): Promise<Operation> {
    const request = options.request(index);
    const until = Date.now() + retryForMs;
    const operation: Operation = { index, attempts: [], gaveUp: false };
    for (let round = 0; ; round++) {
      const { attempt: result, body } = await attempt(request);
      operation.attempts.push(result);
      const again = result.status === undefined || retryable(result.status);
      if (again && result.status !== undefined) result.body = body;
      if (!again) {
        operation.status = result.status;
        operation.body = body;
        return operation;
      }
      failed += 1;
      wake();
      if (Date.now() >= until) {
        operation.status = result.status;
        operation.body = body;
        operation.gaveUp = true;
        return operation;
      }
      // The pause of a client that backs off (100 ms doubling up to 1 s), not a synchronization.
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 100 * 2 ** round)));
    }
  }

  async function client() {
    while (!stopping) {
      const operation = await operate(next++);
      operations.push(operation);
      if (is2xx(operation.status)) succeeded += 1;
      wake();
    }
  }

  function waitUntil(holds: () => boolean, what: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!holds()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} (succeeded ${succeeded}, failed attempts ${failed})`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  }

  const clients = Array.from({ length: options.clients }, () => client());
  return {
    succeeded: () => succeeded,
    failedAttempts: () => failed,
    moreSucceeded(count, timeoutMs = 90_000) {
      const target = succeeded + count;
      return waitUntil(() => succeeded >= target, `${count} more operations to succeed`, timeoutMs);
    },
    moreFailed(count, timeoutMs = 90_000) {
      const target = failed + count;
      return waitUntil(() => failed >= target, `${count} more attempts to fail`, timeoutMs);
    },
    async stop() {
      stopping = true;
      await Promise.all(clients);
      return [...operations].sort((a, b) => a.index - b.index);
    },
  };
}
