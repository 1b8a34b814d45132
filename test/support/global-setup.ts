import type { TestProject } from 'vitest/node';
import { resolveStack } from './stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: import('./stack.js').StackEndpoints;
  }
}

/** Finds or starts the real stack once for the whole run and hands its endpoints to every test file. */
export default async function setup(project: TestProject) {
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  project.provide('stack', stack);
}
