import { dirname, join } from 'node:path';
import { registryUrl, type StackConfig } from './config.js';
import { startDetached, type ManagedProcess } from './processes.js';

/**
 * Apicurio Registry with in-memory storage (its default: H2 in memory), serving the
 * Confluent-compatible API at /apis/ccompat/v7. Schemas do not survive a restart; the service
 * registers its schemas when it starts, so nothing depends on them surviving.
 */

export function registryProcess(config: StackConfig): ManagedProcess {
  return {
    name: 'registry',
    pidFile: join(config.dir, 'pids', 'registry.pid'),
    logFile: join(config.dir, 'logs', 'registry.log'),
    // The jar lives in this folder of the stack, so its path tells our registry from any other JVM.
    marker: join(config.dir, 'registry', 'app'),
  };
}

export function startRegistry(config: StackConfig, jar: string): number {
  return startDetached(registryProcess(config), 'java', [
    '-Xms64m', '-Xmx384m', '-Djava.awt.headless=true',
    '-Dquarkus.http.host=127.0.0.1', `-Dquarkus.http.port=${config.registryPort}`,
    '-Dquarkus.http.access-log.enabled=false',
    // Stated rather than left to the defaults, so an upgrade cannot switch storage silently.
    '-Dapicurio.storage.kind=sql', '-Dapicurio.storage.sql.kind=h2',
    '-jar', jar,
  ], dirname(jar));
}

/** True when GET /apis/ccompat/v7/subjects answers 200. */
export async function registryAnswers(config: StackConfig): Promise<boolean> {
  try {
    const response = await fetch(`${registryUrl(config)}/subjects`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}
