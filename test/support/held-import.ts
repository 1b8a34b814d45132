/** The line written to stderr once the process is held (see heldImportArgs). */
export const heldImportLine = (specifier: string) => `import held: ${specifier}`;

/**
 * Node's arguments that hold a process for good at its import of `specifier` (a package it needs
 * but has not loaded yet), saying so on stderr first: a process caught while it is still loading
 * its modules, which takes a second or two (several under tsx) at every start. It then lives until
 * it exits or is stopped.
 */
export function heldImportArgs(specifier: string): string[] {
  const hooks = [
    "import { writeSync } from 'node:fs';",
    'export async function resolve(specifier, context, next) {',
    `  if (specifier !== ${JSON.stringify(specifier)}) return next(specifier, context);`,
    `  writeSync(2, ${JSON.stringify(`${heldImportLine(specifier)}\n`)});`,
    '  return new Promise(() => {});',
    '}',
  ].join('\n');
  const preload = [
    "import { register } from 'node:module';",
    `register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`,
    // A process waiting only on its loader would otherwise end as a top-level await never settled.
    'setInterval(() => {}, 1 << 30);',
  ].join('\n');
  return ['--import', `data:text/javascript,${encodeURIComponent(preload)}`];
}
