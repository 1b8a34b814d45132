import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot, type StackConfig } from './config.js';
import { StackError, run } from './processes.js';

const pom = join(projectRoot, 'ops', 'pom.xml');

export interface Artifacts {
  /** Folder of the broker's jars (a java classpath wildcard goes after it). */
  kafkaLibs: string;
  /** The registry's runnable jar. */
  registryJar: string;
}

function pomVersion(text: string, property: string): string {
  return new RegExp(`<${property}>([^<]+)</${property}>`).exec(text)?.[1] ?? '?';
}

function registryJarIn(folder: string): string | undefined {
  if (!existsSync(folder)) return undefined;
  // 3.0.x ships a runner jar beside lib/; a Quarkus fast-jar layout has quarkus-run.jar instead.
  const jar = readdirSync(folder).find((name) => name.endsWith('-runner.jar') || name === 'quarkus-run.jar');
  return jar === undefined ? undefined : join(folder, jar);
}

function paths(config: StackConfig) {
  return {
    kafkaLibs: join(config.dir, 'kafka', 'libs'),
    registryApp: join(config.dir, 'registry', 'app'),
    downloads: join(config.dir, 'downloads'),
    // The pom's hash: artifacts fetched for another pom are fetched again.
    stamp: join(config.dir, 'artifacts.sha256'),
  };
}

/** The artifacts when they are in the stack folder and match ops/pom.xml. */
export function installedArtifacts(config: StackConfig): Artifacts | undefined {
  const where = paths(config);
  const hash = createHash('sha256').update(readFileSync(pom)).digest('hex');
  if (!existsSync(where.stamp) || readFileSync(where.stamp, 'utf8').trim() !== hash) return undefined;
  const registryJar = registryJarIn(where.registryApp);
  if (!registryJar || !existsSync(join(where.kafkaLibs))) return undefined;
  return { kafkaLibs: where.kafkaLibs, registryJar };
}

/**
 * Fetches Kafka's jars and Apicurio Registry through Maven (its local repository caches them, so
 * only a machine's first run downloads) and unpacks the registry. Needs `mvn`, `java` and `tar`.
 */
export function ensureArtifacts(config: StackConfig, log: (line: string) => void): Artifacts {
  const present = installedArtifacts(config);
  if (present) return present;

  const where = paths(config);
  const text = readFileSync(pom, 'utf8');
  const maven = ['-q', '-B', '-f', pom, `-Dstack.dir=${config.dir}`];
  mkdirSync(config.dir, { recursive: true });

  let started = Date.now();
  log(`fetching Kafka ${pomVersion(text, 'kafka.version')} jars with Maven (ops/pom.xml) into ${where.kafkaLibs}`);
  rmSync(where.kafkaLibs, { recursive: true, force: true });
  run('mvn', [...maven, 'dependency:copy-dependencies@kafka'], 'fetching the Kafka jars');
  log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  started = Date.now();
  const version = pomVersion(text, 'apicurio.version');
  log(`fetching Apicurio Registry ${version} (a ~108 MB tar.gz on a machine's first run) with Maven`);
  // The 2.8 plugin only fetches the file; the 3.x one insists on its (unpublished) parent pom.
  run('mvn', [...maven, 'org.apache.maven.plugins:maven-dependency-plugin:2.8:copy@registry'], 'fetching Apicurio Registry');
  const archive = join(where.downloads, `apicurio-registry-app-${version}-all.tar.gz`);
  rmSync(where.registryApp, { recursive: true, force: true });
  mkdirSync(where.registryApp, { recursive: true });
  run('tar', ['-xzf', archive, '-C', where.registryApp], 'unpacking Apicurio Registry');
  rmSync(archive, { force: true }); // Maven's local repository keeps a copy
  log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const registryJar = registryJarIn(where.registryApp);
  if (!registryJar) throw new StackError(`no runnable jar found in ${where.registryApp} after unpacking ${archive}`);
  writeFileSync(where.stamp, `${createHash('sha256').update(text).digest('hex')}\n`);
  return { kafkaLibs: where.kafkaLibs, registryJar };
}
