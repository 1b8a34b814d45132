import { startServiceProcess, type ServiceProcess } from './child-process.js';
import { freePort } from './stack.js';
import { waitFor } from './wait-for.js';

/** The API as a process of its own: its base URL, and the process to signal. */
export interface ApiProcess extends ServiceProcess {
  url: string;
}

/** Whether a service process is still running (no exit code, no fatal signal). */
export const running = (service: ServiceProcess) => service.child.exitCode === null && service.child.signalCode === null;

/**
 * Starts `services/api/main.ts` with `env` (PORT as given, else a free port) and resolves once
 * GET /healthz answers 200: the server listens only after start-up is complete, so that answer
 * is the readiness signal. Rejects at once if the process exits first.
 */
export async function startApi(env: Record<string, string>, timeoutMs = 90_000): Promise<ApiProcess> {
  const port = env.PORT && env.PORT !== '0' ? env.PORT : String(await freePort());
  const url = `http://127.0.0.1:${port}`;
  const api = startServiceProcess('services/api/main.ts', { ...env, PORT: port, HOST: '127.0.0.1' });
  await waitFor(async () => {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
    await response?.body?.cancel();
    return response?.status === 200;
  }, {
    timeoutMs,
    intervalMs: 100,
    what: 'the API to answer /healthz',
    abandon: () => (running(api) ? undefined : new Error(`the API exited during start-up; output:\n${api.output().slice(-4000)}`)),
  });
  return Object.assign(api, { url });
}

/** Levels at which the projector does not print its `started` line. */
const quiet = new Set(['silent', 'fatal', 'error', 'warn']);

/**
 * Starts `services/projector/main.ts` with `env` and resolves on its `started` log line (printed
 * once every projection's subscription runs); LOG_LEVEL is raised to info if needed for that.
 */
export async function startProjector(env: Record<string, string>, timeoutMs = 90_000): Promise<ServiceProcess> {
  const projector = startServiceProcess('services/projector/main.ts', {
    ...env,
    LOG_LEVEL: quiet.has(env.LOG_LEVEL ?? 'info') ? 'info' : env.LOG_LEVEL!,
  });
  await projector.waitForLog((entry) => entry.event === 'started', timeoutMs);
  return projector;
}

/** A service process a test kills (a crash) and starts again with the same environment. */
export interface Restartable<P extends ServiceProcess> {
  readonly current: P;
  /** Signals the current process (SIGKILL: a crash) and resolves once it has exited; returns its exit code. */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
  /** Starts a new process (resolves once it is ready); the previous one must have exited. */
  start(): Promise<P>;
}

export async function restartable<P extends ServiceProcess>(start: () => Promise<P>): Promise<Restartable<P>> {
  let current = await start();
  return {
    get current() {
      return current;
    },
    kill: (signal = 'SIGKILL') => current.stop(signal),
    async start() {
      if (running(current)) throw new Error('the previous process is still running; kill it first');
      current = await start();
      return current;
    },
  };
}
