import type { TestProject } from 'vitest/node';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createClusterTemplate } from './cluster-template.js';
import { bundleEntries, runFolder } from './entry-bundles.js';
import { GEO_EXCERPT_FILE } from './geo-excerpt.js';
import { resolveStack, stopStackIfStartedHere } from './stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: import('./stack.js').StackEndpoints;
    /** The folder of this run's bundles of the entry points the tests start (see entry-bundles.ts), or null. */
    entryBundles: string | null;
    /** An empty embedded cluster made once for the run, copied by the tests (see cluster-template.ts). */
    embeddedCluster: string;
  }
}

const log = (line: string) => process.stderr.write(`[stack] ${line}\n`);

/** What the run sets up once and hands to every test file. */
interface RunResources {
  stack: import('./stack.js').StackEndpoints;
  entryBundles: string | null;
  embeddedCluster: string;
  tearDown(): Promise<void>;
}

async function setUpRun(root: string): Promise<RunResources> {
  requireSharedData();
  const folder = runFolder(root);
  // Made while the stack starts, which mostly waits.
  const cluster = createClusterTemplate(join(folder, 'embedded-cluster'));
  cluster.catch(() => {}); // awaited below, unless the stack fails first
  const stack = await resolveStack(log);
  // TEST_ENTRIES=tsx starts them exactly as the npm scripts do instead, at tsx's cost.
  const entryBundles = process.env.TEST_ENTRIES === 'tsx' ? null : await bundleEntries(root, folder);
  return {
    stack,
    entryBundles,
    embeddedCluster: await cluster,
    async tearDown() {
      rmSync(folder, { recursive: true, force: true });
      await stopStackIfStartedHere(log);
    },
  };
}

/**
 * Each project of vitest.config.ts (unit, int) runs this setup, in vitest's one process: the
 * first sets the run up, the others share it, and the last teardown undoes it.
 */
const shared = globalThis as { offerLedgerTestRun?: { resources: Promise<RunResources>; projects: number } };

/**
 * Finds or starts the real stack once for the whole run and hands its endpoints to every test
 * file. The last teardown stops only what this run started (KEEP_STACK=1 keeps it).
 */
export default async function setup(project: TestProject) {
  shared.offerLedgerTestRun ??= { resources: setUpRun(project.config.root), projects: 0 };
  const run = shared.offerLedgerTestRun;
  run.projects += 1;
  const resources = await run.resources;
  project.provide('stack', resources.stack);
  project.provide('entryBundles', resources.entryBundles);
  project.provide('embeddedCluster', resources.embeddedCluster);
  return async () => {
    run.projects -= 1;
    if (run.projects > 0) return;
    shared.offerLedgerTestRun = undefined;
    await resources.tearDown();
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
