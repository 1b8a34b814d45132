/** A count in a fixed window as @fastify/rate-limit's stores give it: how many, and the milliseconds left of the window (0: none open). */
export type Counted = { current: number; ttl: number };
export type Done = (error: Error | null, result: Counted | null) => void;

/** What @fastify/rate-limit asks of a store (its own stores' shape). */
export interface RateLimitStore {
  incr(key: string, done: Done, timeWindow: number, max: number): void;
  read(key: string, done: Done, timeWindow: number, max: number): void;
  child(routeOptions: unknown): RateLimitStore;
}

/** Keys counted per store before the least recently counted is forgotten (the plugin's own in-process store keeps as many). */
const KEPT_KEYS = 5_000;

/**
 * Counts per key in fixed windows, in this process, timed on the monotonic clock. The plugin's
 * own in-process store times its windows with Date.now(): after the wall clock was stepped back
 * (an NTP correction) every open window lasted the step longer, and a client over its limit was
 * refused (with a Retry-After of the step) until the wall clock made it up.
 */
export class LocalWindowStore implements RateLimitStore {
  /** Per key, its count and when its window opened; oldest counted first. */
  private readonly windows = new Map<string, { count: number; openedAt: number }>();

  incr(key: string, done: Done, timeWindow: number) {
    const now = performance.now();
    let window = this.windows.get(key);
    if (window !== undefined) this.windows.delete(key);
    if (window === undefined || now - window.openedAt >= timeWindow) window = { count: 0, openedAt: now };
    window.count += 1;
    this.windows.set(key, window);
    if (this.windows.size > KEPT_KEYS) this.windows.delete(this.windows.keys().next().value!);
    done(null, { current: window.count, ttl: timeWindow - (now - window.openedAt) });
  }

  read(key: string, done: Done, timeWindow: number) {
    const now = performance.now();
    const window = this.windows.get(key);
    if (window === undefined || now - window.openedAt >= timeWindow) return done(null, { current: 0, ttl: 0 });
    done(null, { current: window.count, ttl: timeWindow - (now - window.openedAt) });
  }

  child(): RateLimitStore {
    return new LocalWindowStore();
  }
}
