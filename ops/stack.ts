/**
 * The local real stack without Docker: single-node Kafka (KRaft) and Apicurio Registry run from
 * Maven Central artifacts as detached JVMs under STACK_DIR; Postgres and Redis are the machine's.
 *
 *   npx tsx ops/stack.ts up|down|status|env      (npm run stack:up, stack:down, stack:status)
 *
 * `up` is idempotent: what already answers is left alone. `down` stops only the JVMs whose pid
 * files this stack wrote. See ops/config.ts for the STACK_* variables.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { helpPointer } from '../platform/cli/parse-errors.js';
import { ensureArtifacts, installedArtifacts, type Artifacts } from './artifacts.js';
import { registryUrl, stackConfig, stackEnv, type StackConfig, type StackEnv } from './config.js';
import { kafkaAnswers, kafkaProcess, startKafka } from './kafka.js';
import { ensureDatabases, postgresState, redisProblem, safeUrl } from './machine.js';
import {
  StackError,
  alive,
  pollUntil,
  portTaken,
  runningPid,
  stopProcess,
  tail,
  type ManagedProcess,
} from './processes.js';
import { registryAnswers, registryProcess, startRegistry } from './registry.js';
import { reportUnexpectedFailures } from '../platform/cli/unexpected-failure.js';

export type Log = (line: string) => void;

const startTimeoutMs = 120_000;

/** A JVM component of the stack. */
interface Component {
  process: ManagedProcess;
  endpoint: string;
  ports: Array<[number, string]>;
  /** What else to try when it dies at start-up. */
  hint: string;
  answers(): Promise<boolean>;
  start(artifacts: Artifacts): number;
}

function components(config: StackConfig): Component[] {
  return [
    {
      process: kafkaProcess(config),
      endpoint: `127.0.0.1:${config.kafkaPort}`,
      ports: [[config.kafkaPort, 'STACK_KAFKA_PORT'], [config.controllerPort, 'STACK_KAFKA_CONTROLLER_PORT']],
      hint: `If its storage is the problem, \`npm run stack:down\` and delete ${join(config.dir, 'kafka', 'data')} (its topics are lost).`,
      answers: () => kafkaAnswers(config),
      start: (artifacts) => startKafka(config, artifacts.kafkaLibs),
    },
    {
      process: registryProcess(config),
      endpoint: registryUrl(config),
      ports: [[config.registryPort, 'STACK_REGISTRY_PORT']],
      hint: 'It needs Java 17 or newer on PATH (`java -version`).',
      answers: () => registryAnswers(config),
      start: (artifacts) => startRegistry(config, artifacts.registryJar),
    },
  ];
}

/** Serializes up and down across processes (a person and a test run may both start the stack). */
async function withLock<T>(config: StackConfig, log: Log, fn: () => Promise<T>): Promise<T> {
  mkdirSync(config.dir, { recursive: true });
  const file = join(config.dir, 'stack.lock');
  const deadline = Date.now() + 10 * 60_000;
  let waiting = false;
  for (;;) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const text = readFileSync(file, 'utf8').trim();
    const holder = Number(text);
    if (text !== '' && !alive(holder)) {
      rmSync(file, { force: true }); // left by a run that was killed
      continue;
    }
    if (Date.now() > deadline) throw new StackError(`another stack command (pid ${holder}) holds ${file}; wait for it or remove the file`);
    if (!waiting) log(`waiting for another stack command (pid ${holder || '?'}) to finish`);
    waiting = true;
    await new Promise((done) => setTimeout(done, 250));
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

async function checkMachineServices(config: StackConfig, log: Log): Promise<void> {
  try {
    const created = await ensureDatabases(config);
    const note = created.length ? `created ${created.join(', ')}` : `${config.databases.join(', ')} present`;
    log(`postgres: up at ${safeUrl(config.postgresUrl)} (${note})`);
  } catch (error) {
    throw new StackError((error as Error).message);
  }
  const problem = await redisProblem(config);
  if (problem) {
    throw new StackError(`redis at ${safeUrl(config.redisUrl)} does not answer PING (${problem}). ` +
      'Start the machine\'s Redis, or set STACK_REDIS_URL.');
  }
  log(`redis: up at ${safeUrl(config.redisUrl)}`);
}

async function waitForComponent(component: Component, pid: number, started: number): Promise<string | undefined> {
  const { name, logFile } = component.process;
  const ready = await pollUntil(component.answers, {
    timeoutMs: startTimeoutMs,
    intervalMs: 250,
    giveUp: () => runningPid(component.process) === undefined,
  });
  if (ready) return undefined;
  const exited = runningPid(component.process) === undefined;
  const what = exited
    ? `${name} exited during start-up (pid ${pid}).`
    : `${name} did not answer at ${component.endpoint} within ${startTimeoutMs / 1000} s; it is still running (pid ${pid}).`;
  const next = exited
    ? `Fix the cause above, then run \`npm run stack:up\` again. ${component.hint}`
    : 'If the machine is just slow, run `npm run stack:up` again to keep waiting; otherwise `npm run stack:down`, fix the cause above and retry.';
  return `${what} Last lines of ${logFile} (after ${seconds(started)}):\n${tail(logFile)}\n${next}`;
}

export interface StackUpResult {
  env: StackEnv;
  /** The components this call started (empty when everything already answered). */
  started: string[];
}

/**
 * Makes the whole stack answer: creates the project's databases, checks Redis, fetches the JVM
 * artifacts if missing and starts Kafka and the registry unless they already answer.
 * Throws StackError with the log's tail and what to do next when something does not come up.
 */
export async function stackUp(log: Log = console.error, config: StackConfig = stackConfig()): Promise<StackUpResult> {
  const since = Date.now();
  return withLock(config, log, async () => {
    await checkMachineServices(config, log);
    const all = components(config);
    const answering = await Promise.all(all.map((component) => component.answers()));
    const needed = all.filter((_, index) => !answering[index]);
    for (const component of all) {
      if (!needed.includes(component)) log(`${component.process.name}: already up at ${component.endpoint}`);
    }

    const started: string[] = [];
    const waits: Array<Promise<string | undefined>> = [];
    if (needed.length > 0) {
      // Every port is checked before anything starts, so a conflict leaves nothing half started.
      const running = new Map(needed.map((component) => [component, runningPid(component.process)]));
      for (const component of needed) {
        if (running.get(component) !== undefined) continue;
        for (const [port, variable] of component.ports) {
          if (await portTaken(port)) {
            throw new StackError(`${component.process.name}: port ${port} is taken by a program that does not answer as ` +
              `${component.process.name}. Stop that program, or choose another port with ${variable}.`);
          }
        }
      }
      // Fetched only for a start: a refetch must not swap jars under a JVM that is still starting.
      let artifacts: Artifacts | undefined;
      for (const component of needed) {
        const { name, logFile } = component.process;
        let pid = running.get(component);
        if (pid !== undefined) {
          log(`${name}: pid ${pid} is running but not answering yet; waiting for it`);
        } else {
          artifacts ??= ensureArtifacts(config, log);
          pid = component.start(artifacts);
          started.push(name);
          log(`${name}: starting (pid ${pid}, log ${logFile})`);
        }
        waits.push(waitForComponent(component, pid, Date.now()).then((problem) => {
          if (!problem) log(`${name}: up at ${component.endpoint} (${seconds(since)} since stack:up began)`);
          return problem;
        }));
      }
    }
    const problems = (await Promise.all(waits)).filter((problem) => problem !== undefined);
    if (problems.length > 0) throw new StackError(problems.join('\n\n'));
    log(`stack up in ${seconds(since)}`);
    return { env: stackEnv(config), started };
  });
}

/** Stops the JVMs this stack started (by their pid files) and waits for them to exit. */
export async function stackDown(log: Log = console.error, config: StackConfig = stackConfig()): Promise<void> {
  await withLock(config, log, async () => {
    await Promise.all(components(config).map(async ({ process: managed }) => {
      const pid = runningPid(managed);
      const stopped = await stopProcess(managed);
      log(stopped ? `${managed.name}: stopped (pid ${pid})` : `${managed.name}: not running (no live pid file of this stack)`);
    }));
  });
}

/**
 * The JVM artifacts of the stack, for a program that runs a broker of its own (a test's private
 * one): the installed ones, else fetched once under the stack's lock as `up` would.
 */
export async function stackArtifacts(log: Log = console.error, config: StackConfig = stackConfig()): Promise<Artifacts> {
  return installedArtifacts(config) ?? withLock(config, log, async () => ensureArtifacts(config, log));
}

export interface ComponentStatus {
  name: string;
  up: boolean;
  endpoint: string;
  detail: string;
}

async function stackStatus(config: StackConfig = stackConfig()): Promise<ComponentStatus[]> {
  const jvms = await Promise.all(components(config).map(async (component): Promise<ComponentStatus> => {
    const up = await component.answers();
    const pid = runningPid(component.process);
    const detail = pid !== undefined ? `pid ${pid}` : up ? 'not started by this stack' : '';
    return { name: component.process.name, up, endpoint: component.endpoint, detail };
  }));
  const postgres = await postgresState(config);
  const redis = await redisProblem(config);
  return [
    ...jvms,
    {
      name: 'postgres',
      up: postgres.answers && postgres.missing.length === 0,
      endpoint: safeUrl(config.postgresUrl),
      detail: postgres.error ?? (postgres.missing.length ? `missing databases ${postgres.missing.join(', ')}` : ''),
    },
    { name: 'redis', up: redis === undefined, endpoint: safeUrl(config.redisUrl), detail: redis ?? '' },
  ];
}

function envLines(env: StackEnv): string {
  return `${Object.entries(env).map(([key, value]) => `${key}=${value}`).join('\n')}\n`;
}

async function main(command: string | undefined): Promise<number> {
  const log: Log = (line) => process.stderr.write(`[stack] ${line}\n`);
  switch (command) {
    case 'up': {
      const { env } = await stackUp(log);
      process.stdout.write(envLines(env));
      return 0;
    }
    case 'down':
      await stackDown(log);
      return 0;
    case 'status': {
      const status = await stackStatus();
      for (const item of status) {
        const line = `${item.name.padEnd(9)} ${(item.up ? 'up' : 'down').padEnd(5)} ${item.endpoint}`;
        process.stdout.write(`${line}${item.detail ? `  (${item.detail})` : ''}\n`);
      }
      return status.every((item) => item.up) ? 0 : 1;
    }
    case 'env':
      process.stdout.write(envLines(stackEnv(stackConfig())));
      return 0;
    default:
      process.stderr.write(`error: ${command === undefined ? 'no command given' : `unknown command ${JSON.stringify(command)}`}: one of up, down, status, env ${helpPointer('tsx ops/stack.ts')}\n`);
      return 2;
  }
}

const STACK_USAGE = `usage: tsx ops/stack.ts up|down|status|env (npm run stack:up, stack:down, stack:status)
up: starts Kafka (KRaft) and Apicurio Registry from Maven Central artifacts in STACK_DIR (default
.stack/), fetched on first use, and prints the environment that points at them and the machine's
Postgres and Redis; down: stops what up started; status: says what answers; env: prints that
environment without starting anything.`;

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  reportUnexpectedFailures();
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(`${STACK_USAGE}\n`);
    process.exit(0);
  }
  const [command, ...rest] = process.argv.slice(2);
  if (rest.length > 0) {
    process.stderr.write(`error: unknown argument ${JSON.stringify(rest[0])}: ${command} takes none\n`);
    process.exit(2);
  }
  main(command).then(
    (code) => process.exit(code),
    (error: unknown) => {
      // A failure line like every command's; an unexpected error keeps its stack under it.
      const unexpected = error instanceof StackError ? '' : `${(error as Error).stack ?? ''}\n`;
      process.stderr.write(`error: ${(error as Error).message ?? String(error)}\n${unexpected}`);
      process.exit(1);
    },
  );
}
