import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import type { Metrics } from '../metrics/metrics.js';
import type { EventLog } from './event-log.js';
import { kafkaEventLog } from './kafka-event-log.js';
import { registryCodec } from './registry-codec.js';
import { loadSchemaCatalog } from './schema-catalog.js';
import { sqlCodec } from './sql-codec.js';
import { sqlEventLog } from './sql-event-log.js';
import { reachBackend } from '../startup.js';

/** Kafka with the schema registry when KAFKA_BROKERS is set; otherwise the log lives in the database. */
export async function openEventLog(config: Config, db: Db, metrics?: Metrics): Promise<EventLog> {
  const schemas = loadSchemaCatalog();
  if (config.kafkaBrokers && config.schemaRegistryUrl) {
    const registryUrl = config.schemaRegistryUrl;
    await reachBackend('SCHEMA_REGISTRY_URL', 'check that the schema registry runs there (Apicurio: .../apis/ccompat/v7)', 5_000, async () => {
      const response = await fetch(`${registryUrl.replace(/\/$/, '')}/subjects`, { signal: AbortSignal.timeout(5_000) });
      if (!response.ok) throw new Error(`GET /subjects answered ${response.status}`);
    });
    return kafkaEventLog(registryCodec(config.schemaRegistryUrl, schemas), {
      brokers: config.kafkaBrokers,
      topicPrefix: config.topicPrefix,
      partitions: config.kafkaPartitions,
      metrics,
    });
  }
  return sqlEventLog(db, sqlCodec(db, schemas), { topicPrefix: config.topicPrefix, metrics });
}
