import { dirname, join } from 'node:path';
import { registryUrl, type StackConfig } from './config.js';
import { startDetached, type ManagedProcess } from './processes.js';

/**
 * Apicurio Registry serving the Confluent-compatible API at /apis/ccompat/v7, its storage an H2
 * file in the stack folder. The schemas must live as long as Kafka's data does: every stored
 * message names its schema by id, and a registry that forgot them would hand out the same ids
 * to other schemas after a restart.
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
    `-Dapicurio.datasource.url=jdbc:h2:file:${join(config.dir, 'registry', 'data', 'registry')}`,
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
