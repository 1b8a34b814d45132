import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../platform/runtime.js';

/**
 * A bench's server runs in a process of its own, so the load generator never shares its event
 * loop: the bench module spawns itself with BENCH_ROLE set, and the child answers on a free port.
 */
export function startBenchServer(moduleUrl: string, role: string, env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(moduleUrl)], {
    env: { ...process.env, ...env, BENCH_ROLE: role },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^listening (\S+)$/.exec(line);
      if (match) resolve({ child, base: match[1]! });
    });
  });
}

/** The child's side: listen on a free port, tell the parent where, close cleanly on SIGTERM. */
export async function listenForBench(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`listening ${address}\n`);
  process.on('SIGTERM', () => void app.close().then(() => runtime.close()).then(() => process.exit(0)));
}

/**
 * The baseline route of a bench: `PUT path` stores a real answer, `method path` sends those bytes
 * back, so the baseline serializes nothing and sends the same size as the route measured.
 */
export function staticAnswerRoute(app: FastifyInstance, path: string, method: 'GET' | 'POST') {
  let answer = '';
  app.put(path, { schema: { hide: true } }, async (request) => {
    answer = JSON.stringify(request.body);
    return {};
  });
  app.route({ method, url: path, schema: { hide: true }, handler: async (_request, reply) => reply.type('application/json; charset=utf-8').send(answer) });
}

/** The figures every bench reports of one load run. */
export function summarize(result: autocannon.Result) {
  return { perSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}
