import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnvironment } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startApi, type ApiProcess } from '../support/service-processes.js';
import { waitFor } from '../support/wait-for.js';

/**
 * New connections that arrive while the API's event loop is busy wait in the kernel's listen
 * queue until the loop accepts them. A stopped process (SIGSTOP) accepts nothing, as a loop busy
 * for that long would: the burst must be held, then answered, not dropped.
 */
const BURST = 1_000;
/** The kernel caps a listen queue at net.core.somaxconn: below the burst, no server setting can hold it. */
const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim());

let database: TestDatabase;
let api: ApiProcess;

beforeAll(async () => {
  database = await createTestDatabase();
  api = await startApi({ ...testEnvironment(database, `t${randomBytes(4).toString('hex')}.`) });
});
afterAll(async () => {
  if (api) api.child.kill('SIGCONT');
  await api?.stop();
  await database?.drop();
});

/** Sends GET /healthz on a connected socket and resolves with everything answered until the server closes it. */
function healthOn(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', () => {});
    socket.end('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  });
}

it(`${BURST} connections opened while the API accepts none are all held by the kernel, then each answered`, async () => {
  expect(somaxconn, 'net.core.somaxconn caps every listen queue: raise it to hold such bursts (sysctl net.core.somaxconn=4096)').toBeGreaterThanOrEqual(BURST);
  const port = Number(new URL(api.url).port);
  const sockets: Socket[] = [];
  let connected = 0;
  const failures: string[] = [];
  api.child.kill('SIGSTOP');
  try {
    for (let i = 0; i < BURST; i += 1) {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (connected += 1));
      socket.once('error', (error: NodeJS.ErrnoException) => failures.push(error.code ?? error.message));
      sockets.push(socket);
    }
    // With Node's default queue of 511 the kernel drops the handshakes past it: those connections
    // stay unopened here (and were reset under load once their SYN was retried into a full queue).
    await waitFor(() => connected + failures.length === BURST, {
      timeoutMs: 20_000,
      what: `the kernel to complete ${BURST} handshakes for the stopped API`,
    });
  } finally {
    api.child.kill('SIGCONT');
  }
  expect(failures).toEqual([]);
  const answers = await Promise.all(sockets.map(healthOn));
  expect(answers.filter((answer) => !answer.startsWith('HTTP/1.1 200 '))).toEqual([]);
});
