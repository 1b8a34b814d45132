/**
 * The time left for `remaining` units at `perSecond`, for a progress line: `?` until a rate is
 * known, then `45s`, `3m05s`, `2h07m`. Computed from the caller's own rate since the start:
 * cli-progress's ETA comes from the updates it was given, so a bar fed every few seconds (a job
 * run in the service, a line every 5 s when stderr is not a terminal) read 0s with most left.
 */
export function etaText(remaining: number, perSecond: number): string {
  if (remaining <= 0) return durationText(0);
  return durationText(perSecond > 0 ? Math.ceil(remaining / perSecond) : null);
}

/** Whole seconds as a progress line says them (`45s`, `3m05s`, `2h07m`); null, not known yet, as `?`. */
export function durationText(seconds: number | null): string {
  if (seconds === null) return '?';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
