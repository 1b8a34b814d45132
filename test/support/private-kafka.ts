import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stackConfig, type StackConfig } from '../../ops/config.js';
import { kafkaAnswers, prepareKafka } from '../../ops/kafka.js';
import { pollUntil } from '../../ops/processes.js';
import { stackArtifacts } from '../../ops/stack.js';
import { startProgram, type FollowedProcess } from './child-process.js';
import { freePort } from './stack.js';

/**
 * A single-node Kafka broker of one test file's own, for faults that must not touch the shared
 * broker: its own ports and data folder, run from the stack's jars (ops/: fetched once per machine
 * by `npm run stack:up`, never per test). Stopping and starting keep its data, like a real
 * broker restart; close() stops it and deletes the folder.
 */
export interface PrivateKafka {
  /** Bootstrap servers, for KAFKA_BROKERS. */
  brokers: string[];
  /** Stops the broker: SIGTERM (a controlled shutdown, waited for) or SIGKILL (a crash). */
  stop(options?: { signal?: 'SIGTERM' | 'SIGKILL' }): Promise<void>;
  /** Starts it again on the same ports and data; resolves once it answers. */
  start(): Promise<void>;
  /** stop() then start(). */
  restart(options?: { signal?: 'SIGTERM' | 'SIGKILL' }): Promise<void>;
  /** SIGSTOP: the broker keeps its connections and answers nothing (a hung broker) until resume(). */
  pause(): void;
  resume(): void;
  /** The broker's output so far (for failure messages). */
  output(): string;
  close(): Promise<void>;
}

const startTimeoutMs = 120_000;
/** A controlled shutdown of a one-node cluster takes seconds; past this it is killed. */
const stopTimeoutMs = 60_000;

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export async function startPrivateKafka(): Promise<PrivateKafka> {
  const log = (line: string) => process.stderr.write(`[private-kafka] ${line}\n`);
  const { kafkaLibs } = await stackArtifacts(log);
  const [kafkaPort, controllerPort] = await distinctFreePorts(2);
  const dir = mkdtempSync(join(tmpdir(), 'offer-ledger-kafka-'));
  // The stack's own configuration with this broker's folder and ports in it.
  const config: StackConfig = { ...stackConfig(), dir, kafkaPort: kafkaPort!, controllerPort: controllerPort! };
  let broker: FollowedProcess | undefined;
  let earlier = '';

  async function start() {
    if (broker && broker.child.exitCode === null && broker.child.signalCode === null) return;
    const { command, args, cwd } = prepareKafka(config, kafkaLibs);
    const current = startProgram(command, args, { cwd });
    broker = current;
    const up = await pollUntil(() => kafkaAnswers(config), {
      timeoutMs: startTimeoutMs,
      intervalMs: 200,
      giveUp: () => current.child.exitCode !== null || current.child.signalCode !== null,
    });
    if (!up) {
      await current.stop('SIGKILL');
      throw new Error(`the private Kafka broker did not answer on port ${kafkaPort}; its output:\n${current.output().slice(-6000)}`);
    }
  }

  async function stop({ signal = 'SIGTERM' }: { signal?: 'SIGTERM' | 'SIGKILL' } = {}) {
    const current = broker;
    if (!current) return;
    const exited = current.stop(signal);
    const timer = setTimeout(() => current.child.kill('SIGKILL'), stopTimeoutMs);
    await exited;
    clearTimeout(timer);
    earlier += current.output();
    broker = undefined;
  }

  try {
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    brokers: [`127.0.0.1:${kafkaPort}`],
    stop,
    start,
    async restart(options) {
      await stop(options);
      await start();
    },
    pause: () => void broker?.child.kill('SIGSTOP'),
    resume: () => void broker?.child.kill('SIGCONT'),
    output: () => earlier + (broker?.output() ?? ''),
    async close() {
      // A paused broker takes SIGKILL as well; SIGCONT first lets nothing wait on it.
      broker?.child.kill('SIGCONT');
      await stop({ signal: 'SIGKILL' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
