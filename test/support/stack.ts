/**
 * Endpoints of the real stack for tests. Placeholder: reads the environment only; the ops issue
 * work adds testcontainers and the ops/ stack as fallbacks.
 */
export interface StackEndpoints {
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  /** A Postgres URL with the right to create databases. */
  postgresAdminUrl: string;
  redisUrl: string;
}

export async function resolveStack(_log: (line: string) => void): Promise<StackEndpoints> {
  return {
    kafkaBrokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
    schemaRegistryUrl: process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7',
    postgresAdminUrl: process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}
