import { rmSync } from 'node:fs';
import { afterAll, afterEach } from 'vitest';
import { startServiceProcess, type ServiceProcess } from './child-process.js';
import { dataDirWithCluster } from './embedded-cluster.js';

const isListening = (entry: Record<string, unknown>) => typeof entry.msg === 'string' && entry.msg.startsWith('Server listening');

/**
 * Fresh DATA_DIR folders, and API processes owning them, for the tests of one file: the
 * processes are killed after each test, the folders removed after the file.
 */
export function embeddedOwners(prefix: string) {
  const dataDirs: string[] = [];
  const services: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(services.splice(0).map((service) => service.stop('SIGKILL')));
  });
  afterAll(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });
  return {
    /** A new DATA_DIR holding an empty embedded database (see embedded-cluster.ts). */
    dataDir(): string {
      const dir = dataDirWithCluster(prefix);
      dataDirs.push(dir);
      return dir;
    },
    /** `npm start` on `env` (its DATA_DIR) and `port`, once it listens. */
    async startApi(env: Record<string, string>, port: number): Promise<ServiceProcess> {
      const service = startServiceProcess('services/api/main.ts', { ...env, PORT: String(port) });
      services.push(service);
      await service.waitForLog(isListening, 90_000);
      return service;
    },
  };
}
