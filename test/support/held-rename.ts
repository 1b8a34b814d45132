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
    // Listening before saying so: a SIGUSR2 with no listener would end the process.
    "    const released = new Promise((resolve) => process.once('SIGUSR2', resolve));",
    `    writeSync(2, ${JSON.stringify(heldRenameLine(''))} + String(to) + '\\n');`,
    '    await released;',
    '  }',
    '  return rename(from, to);',
    '};',
    // The named imports of node:fs/promises (the writers') see the replaced function too.
    'syncBuiltinESMExports();',
  ].join('\n');
  return ['--import', `data:text/javascript,${encodeURIComponent(preload)}`];
}
