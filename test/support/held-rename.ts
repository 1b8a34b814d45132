/** The line written to stderr once the process is held (see heldRenameArgs). */
export const heldRenameLine = (path: string) => `rename held: ${path}`;

/**
 * Node's arguments that hold a process at its first `rename` (node:fs/promises) onto a path
 * ending in `name`, saying so on stderr first, until the process gets SIGUSR2: a process caught
 * while it moves a finished file into place, a step otherwise over in a moment.
 */
export function heldRenameArgs(name: string): string[] {
  const preload = [
    "import promises from 'node:fs/promises';",
    "import { writeSync } from 'node:fs';",
    "import { syncBuiltinESMExports } from 'node:module';",
    'const rename = promises.rename;',
    'let held = false;',
    'promises.rename = async (from, to) => {',
    `  if (!held && String(to).endsWith(${JSON.stringify(name)})) {`,
    '    held = true;',
    `    writeSync(2, ${JSON.stringify(heldRenameLine(''))} + String(to) + '\\n');`,
    "    await new Promise((resolve) => process.once('SIGUSR2', resolve));",
    '  }',
    '  return rename(from, to);',
    '};',
    // The named imports of node:fs/promises (the writers') see the replaced function too.
    'syncBuiltinESMExports();',
  ].join('\n');
  return ['--import', `data:text/javascript,${encodeURIComponent(preload)}`];
}
