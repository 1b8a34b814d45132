import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { StackConfig } from './config.js';
import { run, startDetached, type ManagedProcess } from './processes.js';
import { dropKafkajsNegativeTimeoutWarnings } from '../platform/events/kafkajs-timer-warning.js';

/** Single-node Apache Kafka in KRaft combined mode (broker and controller in one JVM). */

function paths(config: StackConfig) {
  const home = join(config.dir, 'kafka');
  return {
    home,
    data: join(home, 'data'),
    serverProperties: join(home, 'config', 'server.properties'),
    log4j: join(home, 'config', 'log4j.properties'),
    toolsLog4j: join(home, 'config', 'tools-log4j.properties'),
    clusterId: join(home, 'cluster-id'),
  };
}

export function kafkaProcess(config: StackConfig): ManagedProcess {
  return {
    name: 'kafka',
    pidFile: join(config.dir, 'pids', 'kafka.pid'),
    logFile: join(config.dir, 'logs', 'kafka.log'),
    // The config path is unique to this stack folder, so it tells our broker from any other JVM.
    marker: paths(config).serverProperties,
  };
}

function serverProperties(config: StackConfig, dataDir: string): string {
  const settings: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@127.0.0.1:${config.controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${config.kafkaPort},CONTROLLER://127.0.0.1:${config.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${config.kafkaPort}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'log.dirs': dataDir,
    // One node: every internal topic has one replica, and fewer partitions keep the first
    // consumer group (which creates __consumer_offsets) quick on a small machine.
    'offsets.topic.replication.factor': 1,
    'offsets.topic.num.partitions': 10,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 10,
    'num.partitions': 1,
    // Tests start consumer groups all the time; waiting for more members only slows them.
    'group.initial.rebalance.delay.ms': 0,
    // The service creates its topics itself; a typo must not create a topic silently.
    'auto.create.topics.enable': false,
    'delete.topic.enable': true,
  };
  return `${Object.entries(settings).map(([key, value]) => `${key}=${value}`).join('\n')}\n`;
}

const brokerLog4j = `log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.request.logger=WARN
`;

const toolsLog4j = `log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
`;

/** A Kafka cluster id: 16 random bytes in URL-safe base64 (what StorageTool random-uuid prints). */
function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id; // would read as an option on a command line
  }
}

/** How to run a broker: the command, its arguments and its working folder. */
export interface KafkaCommand {
  command: string;
  args: string[];
  cwd: string;
}

/**
 * Writes the broker's configuration and, the first time only, formats its storage with the
 * cluster id kept in the stack folder; returns the command that runs the broker. A broker run
 * again from the same folder keeps its topics.
 */
export function prepareKafka(config: StackConfig, libs: string): KafkaCommand {
  const where = paths(config);
  mkdirSync(join(where.home, 'config'), { recursive: true });
  writeFileSync(where.serverProperties, serverProperties(config, where.data));
  writeFileSync(where.log4j, brokerLog4j);
  writeFileSync(where.toolsLog4j, toolsLog4j);
  const classpath = join(libs, '*');

  if (!existsSync(join(where.data, 'meta.properties'))) {
    if (!existsSync(where.clusterId)) writeFileSync(where.clusterId, `${newClusterId()}\n`);
    const clusterId = readFileSync(where.clusterId, 'utf8').trim();
    run('java', [
      '-cp', classpath, `-Dlog4j.configuration=file:${where.toolsLog4j}`,
      'kafka.tools.StorageTool', 'format', '--ignore-formatted', '-t', clusterId, '-c', where.serverProperties,
    ], 'formatting the Kafka storage');
  }

  return {
    command: 'java',
    args: [
      '-Xms256m', '-Xmx768m', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-Djava.awt.headless=true',
      `-Dlog4j.configuration=file:${where.log4j}`, `-Dkafka.logs.dir=${join(config.dir, 'logs')}`,
      '-cp', classpath, 'kafka.Kafka', where.serverProperties,
    ],
    cwd: where.home,
  };
}

/** Prepares the stack's broker and starts it detached (it outlives the caller); returns its pid. */
export function startKafka(config: StackConfig, libs: string): number {
  const { command, args, cwd } = prepareKafka(config, libs);
  return startDetached(kafkaProcess(config), command, args, cwd);
}

/** True when the broker answers: kafkajs can describe the cluster, see a broker and list topics. */
export async function kafkaAnswers(config: StackConfig): Promise<boolean> {
  dropKafkajsNegativeTimeoutWarnings();
  const kafka = new Kafka({
    clientId: 'offer-ledger-stack',
    brokers: [`127.0.0.1:${config.kafkaPort}`],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 3_000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    await admin.listTopics();
    return cluster.brokers.length > 0;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
