import type { TestProject } from 'vitest/node';
import { existsSync, rmSync } from 'node:fs';
import { bundleEntries } from './entry-bundles.js';
import { GEO_EXCERPT_FILE } from './geo-excerpt.js';
import { resolveStack, stopStackIfStartedHere } from './stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: import('./stack.js').StackEndpoints;
    /** The folder of this run's bundles of the entry points the tests start (see entry-bundles.ts), or null. */
    entryBundles: string | null;
  }
}

const log = (line: string) => process.stderr.write(`[stack] ${line}\n`);

/**
 * Finds or starts the real stack once for the whole run and hands its endpoints to every test
 * file. The returned teardown stops only what this run started (KEEP_STACK=1 keeps it).
 */
export default async function setup(project: TestProject) {
  requireSharedData();
  const stack = await resolveStack(log);
  project.provide('stack', stack);
  // TEST_ENTRIES=tsx starts them exactly as the npm scripts do instead, at tsx's cost.
  const bundles = process.env.TEST_ENTRIES === 'tsx' ? null : await bundleEntries(project.config.root);
  project.provide('entryBundles', bundles);
  return async () => {
    if (bundles) rmSync(bundles, { recursive: true, force: true });
    await stopStackIfStartedHere(log);
  };
}

/** The tests read real data from the shared folder beside the project; without it, say so once. */
function requireSharedData() {
  if (existsSync(GEO_EXCERPT_FILE)) return;
  throw new Error(
    `the tests read the geo-target excerpt from ${GEO_EXCERPT_FILE}, which is missing: ` +
      'check out the project beside the shared/ folder (shared/data/geo/…), or set SHARED_DIR to where it is, and run the tests again',
  );
}
