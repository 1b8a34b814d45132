import type { TestProject } from 'vitest/node';
import { resolveStack, stopStackIfStartedHere } from './stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: import('./stack.js').StackEndpoints;
  }
}

const log = (line: string) => process.stderr.write(`[stack] ${line}\n`);

/**
 * Finds or starts the real stack once for the whole run and hands its endpoints to every test
 * file. The returned teardown stops only what this run started (KEEP_STACK=1 keeps it).
 */
export default async function setup(project: TestProject) {
  const stack = await resolveStack(log);
  project.provide('stack', stack);
  return () => stopStackIfStartedHere(log);
}
