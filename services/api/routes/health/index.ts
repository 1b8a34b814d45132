import { Type } from '@sinclair/typebox';
import { coalesced } from '../../../../platform/async/coalesced.js';
import { settledWithin } from '../../../../platform/async/deadline.js';
import { probe } from '../../../../platform/db/db.js';
import { redisTakesWrites } from '../../../../platform/redis/write-probe.js';
import { registryAnswers } from '../../../../platform/events/open-event-log.js';
import type { FastifyInstance } from 'fastify';
import { errorStatuses, methodNotAllowedStatus, successEnvelope } from '../../../../platform/http/envelope-schema.js';
import { failure, success } from '../../../../platform/http/envelope.js';
import { withExamples } from '../../../../platform/http/response-examples.js';
import type { Runtime } from '../../../../platform/runtime.js';
import { TAG } from '../../openapi/tags.js';
import { healthzExamples, readyzExamples } from './examples.js';
import { redisDisconnection } from '../../../../platform/runtime.js';

const backends = Type.Record(Type.String(), Type.String(), { description: "each backend: 'ok' or 'unavailable: <reason>'" });

const healthzSchema = {
  summary: 'Liveness: the process answers',
  tags: [TAG.health],
  response: withExamples({
    200: successEnvelope(Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false }), undefined, 'alive'),
    ...errorStatuses({ ...methodNotAllowedStatus('GET, HEAD'), 503: {} }),
  }, healthzExamples),
};

const readyzSchema = {
  summary: 'Readiness: every backend this process uses answers',
  tags: [TAG.health],
  response: withExamples({
    200: successEnvelope(Type.Object({ status: Type.Literal('ready'), backends }, { additionalProperties: false }), undefined, 'every backend answers'),
    // backends is optional: a request arriving during shutdown is SHUTTING_DOWN, with extra {}.
    ...errorStatuses(
      { ...methodNotAllowedStatus('GET, HEAD'), 503: { NOT_READY: 'a backend is unavailable; extra.backends says which' } },
      { extra: Type.Object({ backends: Type.Optional(backends) }, { additionalProperties: false }) },
    ),
  }, readyzExamples),
};

const MB = 1024 * 1024;

/** How long a backend may take to answer a readiness check: one that hangs is as unready as one that refuses. */
const READINESS_CHECK_MS = 2_000;

/** Liveness (the process answers) and readiness (every backend this process uses answers, and what `alsoReady` checks). */
export async function healthRoutes(app: FastifyInstance, { runtime, alsoReady = {} }: { runtime: Runtime; alsoReady?: Record<string, () => Promise<unknown>> }) {
  app.get('/healthz', { logLevel: 'warn', schema: healthzSchema }, async () => success({ status: 'ok' }));

  // Every check asks a backend (the projections' lag: a query and a log request per projection).
  // Requests arriving during a round of checks share it, so a flood of GET /readyz (it answers
  // anyone) costs the backends one round at a time, and each is still answered within a round.
  const readiness = coalesced(async () => {
    const checks: Record<string, () => Promise<unknown>> = {
      // On a session of its own when the engine has a pool: whether the database answers, not
      // whether requests hold every session of this process (a balancer taking out every busy API
      // would turn a load spike into an outage).
      database: () => probe(runtime.db),
      event_log: () => runtime.eventLog.ping(),
    };
    Object.assign(checks, alsoReady);
    // The embedded database answers reads on a full disk, but takes no writes (DATA_DIR_MIN_FREE_MB).
    const room = runtime.db.room;
    if (room) checks.data_dir_disk = async () => {
      const { free_bytes: free, min_free_bytes: min, room: enough } = room();
      if (!enough) throw new Error(`${Math.floor(free / MB)} MB free, under DATA_DIR_MIN_FREE_MB (${Math.floor(min / MB)}); writes are refused until there is room`);
    };
    // Reported, not required, with what this process does without them. The registry: every schema
    // of this build was registered when the log opened, so one that is down stops nothing here.
    // Redis: only caches and counts, never the only copy; every route answers without it. A
    // balancer taking every API out while Redis is down would turn a cache outage into a full one.
    const state = async (run: () => Promise<unknown>) => {
      const answer = await settledWithin(run(), READINESS_CHECK_MS);
      return answer.ok ? 'ok' : `unavailable: ${answer.why}`;
    };
    // Each answers its whole note: 'ok', or what is wrong and what it means meanwhile.
    const unanswered = async (check: () => Promise<unknown>, meanwhile: string) => {
      const found = await state(check);
      return found === 'ok' ? found : `${found} (${meanwhile}; a process starting now would stop)`;
    };
    const informational: Record<string, () => Promise<string>> = {};
    const registryUrl = runtime.config.kafkaBrokers ? runtime.config.schemaRegistryUrl : undefined;
    if (registryUrl) informational.schema_registry = () => unanswered(() => registryAnswers(registryUrl, READINESS_CHECK_MS), 'not needed while this process runs');
    const redis = runtime.redis;
    if (redis) {
      informational.redis = async () => {
        // While it reconnects the client refuses commands in words of its own; the connection's error says why.
        const disconnected = redisDisconnection(redis);
        const answers = await unanswered(() => (disconnected ? Promise.reject(new Error(disconnected)) : redis.ping()), 'rate limits count in this process meanwhile');
        if (answers !== 'ok') return answers;
        // A Redis that answers may still refuse writes (at maxmemory with noeviction); a process
        // starting then would not stop, so that note says less.
        const writes = await settledWithin(redisTakesWrites(redis, runtime.config.topicPrefix), READINESS_CHECK_MS);
        return writes.ok ? 'ok' : `unavailable: refuses writes: ${writes.why} (rate limits count in this process and refused postbacks are not kept meanwhile)`;
      };
    }
    const [results, notes] = await Promise.all([
      Promise.all(Object.entries(checks).map(async ([name, run]) => [name, await state(run)] as const)),
      Promise.all(Object.entries(informational).map(async ([name, note]) => [name, await note()] as const)),
    ]);
    return { results, notes };
  });

  app.get('/readyz', { logLevel: 'warn', schema: readyzSchema }, async (_request, reply) => {
    const { results, notes } = await readiness();
    const backends = Object.fromEntries([...results, ...notes]);
    if (results.every(([, state]) => state === 'ok')) return success({ status: 'ready', backends });
    return reply.status(503).send(failure('NOT_READY', 'a backend is unavailable', { backends }));
  });
}
