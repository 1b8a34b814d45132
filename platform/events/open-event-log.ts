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
import { connect } from 'node:net';

/**
 * Fails fast, naming the setting, when Kafka or the schema registry does not answer: a plain TCP
 * check first, since kafkajs retries an unreachable broker for many seconds, logging each try.
 */
export async function checkEventLogEndpoints(config: Config): Promise<void> {
  const brokers = config.kafkaBrokers;
  const registryUrl = config.schemaRegistryUrl;
  if (!brokers || !registryUrl) return;
  await reachBackend('KAFKA_BROKERS', 'check that Kafka runs there', 5_000, () => anyAnswers(brokers), brokers.join(','));
  await reachBackend('SCHEMA_REGISTRY_URL', 'check that the schema registry runs there (Apicurio: .../apis/ccompat/v7)', 5_000, () => registryAnswers(registryUrl, 5_000), registryUrl);
}

/** Resolves when the schema registry answers its subject list within `ms`. */
export async function registryAnswers(registryUrl: string, ms: number): Promise<void> {
  const response = await fetch(`${registryUrl.replace(/\/$/, '')}/subjects`, { signal: AbortSignal.timeout(ms) });
  if (!response.ok) throw new Error(`GET /subjects answered ${response.status}`);
}

/** Kafka with the schema registry when KAFKA_BROKERS is set; otherwise the log lives in the database. */
export async function openEventLog(config: Config, db: Db, metrics?: Metrics): Promise<EventLog> {
  const schemas = loadSchemaCatalog();
  if (config.kafkaBrokers && config.schemaRegistryUrl) {
    return kafkaEventLog(registryCodec(config.schemaRegistryUrl, schemas), {
      brokers: config.kafkaBrokers,
      topicPrefix: config.topicPrefix,
      metrics,
      appendLingerMs: config.kafkaAppendLingerMs,
      logLevel: config.logLevel,
      replication: { replicationFactor: config.kafkaReplicationFactor, minInsyncReplicas: config.kafkaMinInsyncReplicas },
    });
  }
  const codec = sqlCodec(db, schemas, config.databaseUrl ? 'DATABASE_URL' : 'DATA_DIR');
  // Every schema of this build registered at start, as on Kafka: one that cannot read the events
  // of an earlier version stops the start, before any event of it is written.
  await codec.prepare((topic) => `${config.topicPrefix}${topic}`);
  return sqlEventLog(db, codec, { topicPrefix: config.topicPrefix, metrics });
}

/** Resolves when one of the host:port addresses accepts a TCP connection; rejects with the last failure. */
function anyAnswers(addresses: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let failures = 0;
    for (const address of addresses) {
      const at = address.lastIndexOf(':');
      const socket = connect({ host: address.slice(0, at), port: Number(address.slice(at + 1)), timeout: 4_000 });
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      const fail = (error: Error) => {
        socket.destroy();
        failures += 1;
        if (failures === addresses.length) reject(error);
      };
      socket.once('error', fail);
      socket.once('timeout', () => fail(new Error(`connect timed out to ${address}`)));
    }
  });
}
