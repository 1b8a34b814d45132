import { setTimeout as delay } from 'node:timers/promises';
import type avro from 'avsc';
import { COMPATIBILITY as LEVELS, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { wireCodec, type EventCodec } from './codec.js';
import { refuseUnreadable, refuseUnreadableLater } from './readable-versions.js';
import type { KnownSchema } from './schema-catalog.js';
import { BackendUnavailableError, printable } from '../startup.js';
import { retryRetriable } from './kafka-retry.js';

/**
 * How long one registry request may take. Without it a registry that accepts connections and
 * never answers (hung, or behind a stalled proxy) held the first append of each event type, and
 * the request that made it, forever; now it fails as an unreachable registry does and the caller
 * answers 503. Schema ids, once known, are cached: a registry that is down stops only appends of
 * an event type not appended before by this process, and reads of a schema not read before.
 */
const REGISTRY_TIMEOUT_MS = 5_000;

type RegistryMiddleware = NonNullable<ConstructorParameters<typeof SchemaRegistry>[0]['middlewares']>[number];

/** Gives every registry request a deadline (the client's HTTP layer aborts it and fails the call). */
const answerWithin = (timeoutMs: number): RegistryMiddleware => () => ({
  async prepareRequest(next) {
    return (await next()).enhance({ timeout: timeoutMs });
  },
});

/** The compatibility our subjects are registered with (the client library's default, set on a subject's first version). */
const COMPATIBILITY = LEVELS.BACKWARD;

/**
 * The client library registers a subject's first version, then sets its compatibility: a subject
 * caught between the two (another process registering it at that moment, or one that stopped
 * there) has none of its own, reported as the registry's default, NONE, which the library
 * refuses as a mismatch. That one is given ours; a level an operator chose is left alone.
 */
function lacksOwnCompatibility(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConfluentSchemaRegistryCompatibilityError' && / != NONE\)$/.test(error.message);
}

/**
 * The library's own setting of a new subject's compatibility conflicted (409) with another
 * process setting it at the same moment (Apicurio refuses the second of two simultaneous PUTs).
 * The version is registered by then; what is left is to see the level is ours.
 */
function lostCompatibilityRace(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { status, url } = error as { status?: unknown; url?: unknown };
  return status === 409 && typeof url === 'string' && /^put \S*\/config\//i.test(url);
}

/** The registry refused a version as incompatible with the subject's (409 on POST /subjects/…/versions). */
function refusedAsIncompatible(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { status, url } = error as { status?: unknown; url?: unknown };
  return status === 409 && typeof url === 'string' && /^post \S*\/subjects\/[^/]+\/versions$/i.test(url);
}

/**
 * The registry did not answer within the deadline (the client library reports its own timeout as
 * an HTTP 400 "Timeout (…ms)"; fetch as a TimeoutError) or answered 5xx: a busy registry, say
 * while many processes start together. Registering is idempotent, so the subject is tried again.
 */
function answeredTooLateOrFailed(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { status, name, message } = error as { status?: unknown; name?: unknown; message?: unknown };
  if (name === 'TimeoutError') return true;
  if (typeof status !== 'number') return false;
  return status >= 500 || (status === 400 && typeof message === 'string' && /Timeout \(\d+ms\)$/.test(message));
}

/** How often a subject is tried when the registry is slow or failing. */
const REGISTER_ATTEMPTS = 3;

/** A subject whose compatibility is another level than ours (one an operator chose). */
class CompatibilityMismatch extends Error {
  constructor(readonly level: string) {
    super(`compatibility ${level}, not ${COMPATIBILITY}`);
  }
}

/** The level the library's check found instead of ours ("… (BACKWARD != FULL)"), or undefined. */
function mismatchedLevel(error: unknown): string | undefined {
  if (error instanceof CompatibilityMismatch) return error.level;
  if (!(error instanceof Error) || error.name !== 'ConfluentSchemaRegistryCompatibilityError') return undefined;
  return /\(\w+ != (\w+)\)$/.exec(error.message)?.[1];
}

/**
 * The registry refusing this build's schema, as a start-up says it: which subject and file, the
 * registry's reason, and what to do. It read as a backend to check before (the start named
 * KAFKA_BROKERS and said to check that Kafka runs). Other failures are given back as they are.
 */
function asRefusal(registryUrl: string, subject: string, schema: KnownSchema, error: unknown): unknown {
  const setting = `SCHEMA_REGISTRY_URL (${printable(registryUrl)})`;
  if (refusedAsIncompatible(error)) {
    const reason = (error as Error).message.replace(/^offer-ledger - /, '');
    return new BackendUnavailableError(
      setting,
      `the registry refuses this build's schemas/${schema.path} as incompatible (${COMPATIBILITY}) with the latest version of subject ${subject}: ${reason}`,
      'either this build changed the schema so that events written before cannot be read with it (a field added without a default, a type changed: `npm run -s schemas:check` names it), so make the change compatible; or another build registered that latest version, and its events cannot be read by this one: run that build, or delete that version from the subject if no event was written with it',
    );
  }
  const level = mismatchedLevel(error);
  if (level !== undefined) {
    return new BackendUnavailableError(
      setting,
      `subject ${subject} has compatibility ${level}, not ${COMPATIBILITY}`,
      `set it to ${COMPATIBILITY} (PUT /config/<subject> {"compatibility":"${COMPATIBILITY}"}) and start again: each new version of the service's schemas must read the events of the one before`,
    );
  }
  return error;
}

/** After a conflicting compatibility write, how often and how far apart its level is read before it counts as another's. */
const CONFLICT_LOOKS = 5;
const CONFLICT_LOOK_INTERVAL_MS = 200;

/** Codec backed by a Confluent-compatible registry (Apicurio's ccompat API in our stack). */
export function registryCodec(registryUrl: string, schemas: Map<string, KnownSchema>, options: { timeoutMs?: number } = {}): EventCodec {
  const timeoutMs = options.timeoutMs ?? REGISTRY_TIMEOUT_MS;
  const registry = new SchemaRegistry({ host: registryUrl, clientId: 'offer-ledger', middlewares: [answerWithin(timeoutMs)] });
  const base = registryUrl.replace(/\/$/, '');
  const configPath = (subject: string) => `/config/${encodeURIComponent(subject)}`;
  const configUrl = (subject: string) => `${base}${configPath(subject)}`;
  /** A GET of the registry's ccompat API, with the deadline every registry request has. */
  const registryAnswer = async <Answer>(path: string): Promise<Answer> => {
    const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`the schema registry did not answer GET ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Answer;
  };
  const compatibilityOf = async (subject: string) =>
    String((await registryAnswer<{ compatibilityLevel?: unknown }>(configPath(subject))).compatibilityLevel).toUpperCase();
  /** Sets ours; a conflict means another process set one at the same moment, which must be ours too. */
  const ensureCompatibility = async (subject: string) => {
    const response = await fetch(configUrl(subject), {
      method: 'PUT',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ compatibility: COMPATIBILITY }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.ok) return;
    const refusal = `${response.status} ${await response.text()}`;
    if (response.status !== 409) throw new Error(`the schema registry refused compatibility ${COMPATIBILITY} for subject ${subject}: ${refusal}`);
    // The winner's level may be read a moment before the registry shows it: look a few times.
    let level = await compatibilityOf(subject);
    for (let look = 1; level !== COMPATIBILITY && look < CONFLICT_LOOKS; look += 1) {
      await delay(CONFLICT_LOOK_INTERVAL_MS);
      level = await compatibilityOf(subject);
    }
    if (level !== COMPATIBILITY) throw new CompatibilityMismatch(level);
  };
  const register = (subject: string, schema: KnownSchema) => registry.register({ type: SchemaType.AVRO, schema: schema.text }, { subject, compatibility: COMPATIBILITY });
  /**
   * Under BACKWARD the registry checks a new version against the latest one only: v1, then v2
   * adding a field with a default, then v3 making it required was taken, and v3 cannot read v1's
   * events. Every version registered before ours is checked here. So is every version registered
   * after ours (a newer build's, met by this one after a rollback or while a deploy rolls): one
   * this build cannot read stops the start, not each projection at the first of its events.
   */
  const refuseUnreadableVersions = async (subject: string, schema: KnownSchema, id: number) => {
    const path = `/subjects/${encodeURIComponent(subject)}/versions`;
    const versions = await Promise.all((await registryAnswer<number[]>(path)).map((version) => registryAnswer<{ version: number; id: number; schema: string }>(`${path}/${version}`)));
    const ours = versions.find((version) => version.id === id);
    if (!ours) return;
    const setting = `SCHEMA_REGISTRY_URL (${printable(registryUrl)})`;
    const written = (version: (typeof versions)[number]) => ({ id: version.id, version: version.version, schemaText: version.schema });
    for (const version of versions.filter((each) => each.version < ours.version)) refuseUnreadable(setting, subject, schema, written(version));
    for (const version of versions.filter((each) => each.version > ours.version)) {
      refuseUnreadableLater(
        setting,
        subject,
        schema,
        written(ours),
        written(version),
        `run the newer build (or one after it), whose schema reads them; if no event was written with version ${version.version}, delete it from the subject (DELETE /subjects/<subject>/versions/${version.version}) and start again`,
      );
    }
  };
  const registered = async (subject: string, schema: KnownSchema) => {
    try {
      return (await register(subject, schema)).id;
    } catch (error) {
      if (!lacksOwnCompatibility(error) && !lostCompatibilityRace(error)) throw error;
      await ensureCompatibility(subject);
      return (await register(subject, schema)).id;
    }
  };
  return wireCodec(schemas, {
    async idForSubject(subject, schema) {
      try {
        return await retryRetriable(
          async () => {
            const id = await registered(subject, schema);
            await refuseUnreadableVersions(subject, schema, id);
            return id;
          },
          REGISTER_ATTEMPTS,
          answeredTooLateOrFailed,
        );
      } catch (error) {
        throw asRefusal(registryUrl, subject, schema, error);
      }
    },
    async schemaById(schemaId) {
      try {
        return (await registry.getSchema(schemaId)) as unknown as avro.Type;
      } catch (error) {
        // The client reports a refused connection as an HTTP 400: say which registry and which schema.
        throw new Error(`the schema registry (SCHEMA_REGISTRY_URL) did not give schema id ${schemaId}: ${(error as Error).message}`, { cause: error });
      }
    },
  });
}
