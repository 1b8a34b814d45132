import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: the folder that holds ops/. */
export const projectRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/** Where and on which ports the local stack runs; every value can be overridden by STACK_* variables. */
export interface StackConfig {
  dir: string;
  kafkaPort: number;
  controllerPort: number;
  registryPort: number;
  postgresUrl: string;
  redisUrl: string;
  /** Databases the project expects on the machine's Postgres. */
  databases: string[];
}

/** The endpoints, named as the service's own environment variables. */
export interface StackEnv {
  KAFKA_BROKERS: string;
  SCHEMA_REGISTRY_URL: string;
  DATABASE_URL: string;
  REDIS_URL: string;
}

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new Error(`${name} must be a TCP port (1-65535), got "${raw}"`);
  }
  return value;
}

export function stackConfig(env: NodeJS.ProcessEnv = process.env): StackConfig {
  const dir = env.STACK_DIR?.trim() || '.stack';
  return {
    dir: isAbsolute(dir) ? dir : join(projectRoot, dir),
    kafkaPort: port(env, 'STACK_KAFKA_PORT', 9092),
    controllerPort: port(env, 'STACK_KAFKA_CONTROLLER_PORT', 9093),
    registryPort: port(env, 'STACK_REGISTRY_PORT', 8081),
    postgresUrl: env.STACK_POSTGRES_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: env.STACK_REDIS_URL?.trim() || 'redis://127.0.0.1:6379',
    databases: ['offer_ledger'],
  };
}

/** The same server URL with another database in its path. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export function registryUrl(config: StackConfig): string {
  return `http://127.0.0.1:${config.registryPort}/apis/ccompat/v7`;
}

export function stackEnv(config: StackConfig): StackEnv {
  return {
    KAFKA_BROKERS: `127.0.0.1:${config.kafkaPort}`,
    SCHEMA_REGISTRY_URL: registryUrl(config),
    DATABASE_URL: withDatabase(config.postgresUrl, 'offer_ledger'),
    REDIS_URL: config.redisUrl,
  };
}
