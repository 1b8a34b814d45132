import { BackendUnavailableError, describeFailure } from '../startup.js';
import type { Db } from './db.js';

/** How often the database is asked whether it answers (more often for a limit under four times this). */
const CHECK_MS = 5_000;

/**
 * Watches a Postgres database while long work runs on it: a short read every few seconds on a
 * session of its own (Db.probe, itself bounded; it answers however long the work's own statements
 * take). Once none has answered for `limitMs`, aborts the returned signal, once, with
 * `unanswered(seconds, why)`. `stop` ends the watch. The embedded engine is not watched: it runs
 * in this process, and a probe there would wait behind the work's statements.
 */
export function watchForAnUnansweredDatabase(db: Db, limitMs: number, unanswered: (seconds: number, why: string) => Error): { signal: AbortSignal; stop(): void } {
  const silenced = new AbortController();
  if (!db.probe || limitMs <= 0) return { signal: silenced.signal, stop: () => {} };
  // Monotonic: a wall clock stepped forward must not make a moment's silence look like the limit's.
  let lastAnswer = performance.now();
  let why = 'no answer to a SELECT 1 on a session of its own';
  let asking = false;
  const timer = setInterval(() => {
    const silentMs = performance.now() - lastAnswer;
    if (silentMs >= limitMs) {
      clearInterval(timer);
      silenced.abort(unanswered(Math.round(silentMs / 1000), why));
      return;
    }
    if (asking) return;
    asking = true;
    db.probe!('SELECT 1')
      .then(
        () => void (lastAnswer = performance.now()),
        (error: unknown) => void (why = describeFailure(error)),
      )
      .finally(() => (asking = false));
  }, Math.min(CHECK_MS, limitMs / 4));
  timer.unref();
  return { signal: silenced.signal, stop: () => clearInterval(timer) };
}

/**
 * The watch above for a command on Postgres (a replay, an export): its signal's reason is the
 * error the command exits 4 with, naming DATABASE_URL, `hint` saying what it left and what to do.
 */
export function watchDatabaseAnswers(db: Db, limitMs: number, hint: string): { signal: AbortSignal; stop(): void } {
  return watchForAnUnansweredDatabase(db, limitMs, (seconds, why) => new BackendUnavailableError('DATABASE_URL', `the database has not answered for ${seconds} s (${why})`, hint));
}
