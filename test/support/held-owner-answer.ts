/** The start of the line written to stderr once an answer is held; the answer's body follows it (see heldOwnerAnswerArgs). */
export const HELD_OWNER_ANSWER = 'owner answer held: ';

/**
 * Node's arguments that hold a CLI's first `POST path` to the owner of DATA_DIR (node:http's
 * `request`, as the owner client sends it) once its answer has arrived, writing the answer's body
 * on stderr after HELD_OWNER_ANSWER, and hand the answer on only when the process gets SIGUSR2:
 * a CLI caught between the service starting its job and the CLI hearing so, a moment otherwise.
 */
export function heldOwnerAnswerArgs(path: string): string[] {
  const preload = [
    "import http from 'node:http';",
    "import { writeSync } from 'node:fs';",
    "import { syncBuiltinESMExports } from 'node:module';",
    "import { PassThrough } from 'node:stream';",
    'const request = http.request;',
    'let held = false;',
    'http.request = (options, answered) => {',
    `  if (held || options?.method !== 'POST' || options?.path !== ${JSON.stringify(path)} || typeof answered !== 'function') return request(options, answered);`,
    '  held = true;',
    '  return request(options, (response) => {',
    '    const chunks = [];',
    "    response.on('data', (chunk) => chunks.push(chunk));",
    "    response.on('end', () => {",
    '      const body = Buffer.concat(chunks);',
    // Listening before saying so: a SIGUSR2 with no listener would end the process.
    // Nothing else may be pending in the CLI meanwhile (its request has ended): the timer keeps it alive.
    '      const alive = setInterval(() => {}, 60_000);',
    "      process.once('SIGUSR2', () => {",
    '        clearInterval(alive);',
    '        const replayed = new PassThrough();',
    '        replayed.statusCode = response.statusCode;',
    '        answered(replayed);',
    '        replayed.end(body);',
    '      });',
    `      writeSync(2, ${JSON.stringify(HELD_OWNER_ANSWER)} + body.toString('utf8') + '\\n');`,
    '    });',
    '  });',
    '};',
    // The named import of node:http (the owner client's) sees the replaced function too.
    'syncBuiltinESMExports();',
  ].join('\n');
  return ['--import', `data:text/javascript,${encodeURIComponent(preload)}`];
}
