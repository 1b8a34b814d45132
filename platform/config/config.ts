import { TOPICS } from '../../schemas/topics.js';
import { defaultInstanceCacheEntries } from '../memory/bounds.js';
import { checkWritableFolder } from './folder-check.js';
import { exitOnSettingError } from '../startup.js';
import {
  SettingError,
  brokerList,
  derivedInteger,
  integer,
  networkList,
  oneOf,
  optionalFile,
  optionalHex,
  optionalSecret,
  optionalText,
  optionalUrl,
  subsetOf,
  text,
} from './settings.js';

export const settings = {
  port: integer('PORT', 'HTTP port of the API.', 8080, 0, 65535),
  projectorPort: integer('PROJECTOR_PORT', 'HTTP port of a projector process (npm run projector) for /healthz, /readyz (its backends, and whether each projection applies the log) and /metrics (projector_lag_events, events_consumed_total), on HOST. 0: the projector serves no HTTP.', 0, 0, 65535),
  host: text('HOST', 'Address the API (and a projector with PROJECTOR_PORT) listens on.', '127.0.0.1'),
  dataDir: text('DATA_DIR', 'Folder of the embedded default (embedded Postgres with its event log).', '.data'),
  databaseUrl: optionalUrl('DATABASE_URL', 'Postgres for read models (and the event log when Kafka is not set). Unset: embedded Postgres in DATA_DIR.', ['postgres:', 'postgresql:']),
  kafkaBrokers: brokerList('KAFKA_BROKERS', 'Kafka bootstrap servers, host:port[,host:port]. Unset: the event log lives in Postgres. Needs SCHEMA_REGISTRY_URL.'),
  schemaRegistryUrl: optionalUrl('SCHEMA_REGISTRY_URL', 'Confluent-compatible schema registry (Apicurio: .../apis/ccompat/v7), without user:password@ (not sent to it). Needs KAFKA_BROKERS.', ['http:', 'https:'], { userinfo: false }),
  kafkaAppendLingerMs: integer('KAFKA_APPEND_LINGER_MS', 'Milliseconds an append to Kafka waits for concurrent appends to share its produce request when none is in flight (appends arriving during a request always share the next one). 0: no wait.', 1, 0, 1_000),
  kafkaReplicationFactor: integer('KAFKA_REPLICATION_FACTOR', 'Copies of each topic the service creates (existing topics are left as they are). 0: the smaller of 3 and the brokers in the cluster.', 0, 0, 16),
  kafkaMinInsyncReplicas: integer('KAFKA_MIN_INSYNC_REPLICAS', 'min.insync.replicas of each topic the service creates: the copies an append must reach before it is acknowledged (acks=all). 0: one less than the replication factor, at least 1.', 0, 0, 16),
  redisUrl: optionalUrl('REDIS_URL', 'Redis of the API for rate limits and the refusals store (the projector and the commands never connect it). Unset: in-process limits.', ['redis:', 'rediss:'], {
    // The client sends what follows the / as SELECT's number: anything else failed the start with a stack trace.
    path: { pattern: /^\/?\d*$/, expected: 'a database number (redis://host:6379/0) or nothing' },
  }),
  redisCommandTimeoutMs: integer('REDIS_COMMAND_TIMEOUT_MS', 'How long the API waits for one Redis command before counting Redis as not answering: that request\'s limit is then counted in this process, and every limit for the next 5 s. Raise it for a Redis across a slow network.', 500, 50, 60_000),
  topicPrefix: text('TOPIC_PREFIX', 'Prefix of every topic name and consumer group (lets several environments share a cluster); up to 240 characters, so every topic name fits Kafka\'s 249. The projectors\' groups also carry an id of their database, so each database reading these topics gets every partition.', '', /^[A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" or "-"'),
  linkBase: { ...optionalUrl('LINK_BASE', 'Origin of tracked links, {link_base}. Unset: this API\'s own address (127.0.0.1 for a wildcard HOST), so a card\'s link opens where it was served; set it when clients reach the API under another name (a proxy, a public host), and give several API processes the same one: each otherwise hands out links of its own address, and the offer info route of one refuses another\'s links as not of this service (the links open on any). No user, password, ?query or #fragment: a link is this base, a slash and its code.', ['http:', 'https:'], { userinfo: false, queryOrFragment: false }), defaultText: 'http://{HOST}:{PORT}/l' },
  dataDirMinFreeMb: integer('DATA_DIR_MIN_FREE_MB', 'Embedded default: the room the disk holding DATA_DIR must keep; below it no write starts (503s, retryable), /readyz says so, and a start is refused, because the embedded engine hangs its process when the disk fills. 0: not watched.', 48, 0, 1_000_000),
  geoCatalogFile: optionalFile('GEO_CATALOG_FILE', 'Geo-target catalog release (CSV or zip) loaded before the location routes serve.'),
  geoCatalogSha256: optionalHex('GEO_CATALOG_SHA256', 'Expected sha256 of GEO_CATALOG_FILE; the loader refuses a file that differs.', 64),
  geoIndexCacheDir: optionalText('GEO_INDEX_CACHE_DIR', 'Folder where the built location indexes are kept, so a restart loads them instead of building them again (one folder per database). Unset: DATA_DIR/geo-index on the embedded default, none with DATABASE_URL; `off`: none.'),
  keyHashSecret: optionalSecret('KEY_HASH_SECRET', 'Server-side secret that keys API-key hashes. 32 characters or more; required with DATABASE_URL; the embedded default keeps one in DATA_DIR (this one, written there at the first start, or a generated one), and refuses one that differs from it.', 32),
  adminToken: optionalSecret('ADMIN_TOKEN', 'Bearer token of the internal admin API, at least 24 characters (e.g. openssl rand -hex 24). Unset: the admin API is off.', 24),
  metricsToken: optionalSecret('METRICS_TOKEN', 'Bearer token GET /metrics asks for, at least 24 characters (Prometheus: authorization.credentials). After 10 wrong tokens in a minute from one client address, every token it presents is refused (429) for the rest of the minute, as with ADMIN_TOKEN. Unset: /metrics answers anyone who reaches the port.', 24),
  locationRateLimit: integer('LOCATION_RATE_LIMIT', 'Requests per client address per minute on the public location routes.', 600, 1, 1_000_000),
  queryRateLimit: integer('QUERY_RATE_LIMIT', 'Query requests per client address per minute made without an application\'s own Live or Test key (anonymous, or with the shared sandbox key): every card served is an event in the log. Requests with an application\'s key are not counted.', 3_000, 1, 1_000_000),
  clickRateLimit: integer('CLICK_RATE_LIMIT', 'Tracked-link opens (GET and HEAD) per client address per minute: every GET is a click in the log.', 3_000, 1, 1_000_000),
  trustedProxies: networkList('TRUSTED_PROXIES', 'Proxies (IP addresses or CIDRs, comma-separated) whose X-Forwarded-For is believed: the client address is the last one they did not add. Used by the postback allowlist and the rate limits; a header from anyone else is ignored. Empty: the socket address is the client.'),
  databaseQueryTimeoutMs: integer('DATABASE_QUERY_TIMEOUT_MS', 'With DATABASE_URL: how long a statement of the API and projector processes may run: the server cancels it then (statement_timeout, unless the options of DATABASE_URL set one), and one still unanswered a second later gives up its session (discarded and replaced), so sessions a server stops answering cannot fill the pool. 0: no limit. Commands (replay, export, migrate, geo:load) wait without limit (a replay or an export stops on a database that answers nothing at all: DATABASE_UNANSWERED_MS), and so do the migrations a start applies (on a session of their own); raise it for replays run through the admin API on very large tables.', 60_000, 0, 3_600_000),
  databaseIdleInTransactionTimeoutMs: integer('DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 'With DATABASE_URL: how long a session of any process (API, projector, command) may sit idle inside an open transaction before the server ends it (idle_in_transaction_session_timeout, unless the options of DATABASE_URL set one): a process paused or wedged mid-transaction (SIGSTOP, a frozen container) otherwise holds its locks (a projector\'s offset rows, the admin-command turn) and its connection for as long as it stays so. Its transaction rolls back; the process, if it resumes, finds it failed and retries on a new session. The transactions that wait on other work on purpose bound themselves: an admin command\'s turn by its own deadlines, a replay\'s swap by its catch-up (60 s), the seed\'s turn and a read model export\'s read-only snapshot (paced by its file) not at all. 0: no limit.', 30_000, 0, 3_600_000),
  databaseUnansweredMs: integer('DATABASE_UNANSWERED_MS', 'With DATABASE_URL: how long a replay (npm run replay, or one the admin API runs) or an export (npm run export of a read model, or of a topic of the log Postgres holds) goes on once its database answers nothing at all (a short read on a session of its own every 5 s, or a quarter of this when shorter, goes unanswered: a hung server, or a network that stopped carrying its answers), whatever step it is on; it then stops, exit 4 naming DATABASE_URL (a replay the admin API runs fails its job). A replay\'s clean-up DROP SCHEMA waits no longer than this either: a schema it could not drop is named, with the npm run replay -- --drop that removes it; an export removes its unfinished file, as after any failure. Statements that take long on a database that answers (index builds, comparisons of large tables, an export\'s pages) are not limited by it.', 60_000, 1_000, 3_600_000),
  databasePoolSize: integer('DATABASE_POOL_SIZE', 'With DATABASE_URL: the sessions each process (API, projector, command) may keep open to Postgres; the API, a projector, an admin command and the seed also hold one listening session each, the API and a projector answering /readyz one more for its database check, a replay or an export one more for its check that the database answers (and a starting API or projector one more while it migrates). Every process together must stay under the server\'s max_connections less its reserved ones (97 by default: eight processes at 10 + 2).', 10, 1, 1_000),
  requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', 'How long a client may take to send a whole request (line, headers and body) before it is answered 408 REQUEST_TIMEOUT and its connection closed, so a client that stalls mid-request cannot hold a connection open.', 30_000, 1_000, 600_000),
  shutdownDrainMs: integer('SHUTDOWN_DRAIN_MS', 'On SIGTERM, how long the API goes on answering on the connections it has (each answer closing its connection, /readyz 503; new connections are refused at once) before it closes: clients let go of kept-alive connections instead of having them cut under a request. Raise it to the time a load balancer takes to notice.', 1_000, 0, 120_000),
  postbackDecisionTimeoutMs: integer('POSTBACK_DECISION_TIMEOUT_MS', 'How long a postback waits for the ledger\'s decision before answering 503 postback_intake_unavailable (it is logged; the retry gets already_recorded). Every postback is answered within this plus 3 s of its arrival, whichever of its steps stall (reads, append, decision).', 5000, 10, 60_000),
  postbackMaxInFlight: integer('POSTBACK_MAX_IN_FLIGHT', 'Postbacks one API process takes at once (from their arrival until their answer is sent and their intake has ended). Past its capacity (about 1,200 a second a core) every postback taken slows the others, so one more is answered 503 postback_v10_unavailable at once (retryable, nothing logged; Retry-After: 1), counted in postback_overload_refusals_total and logged once per 10 s; postbacks_in_flight on /metrics shows the count. Lower it to answer admitted postbacks sooner, raise it when refusals come while CPU is idle (a slow log or database).', 256, 1, 100_000),
  postbackRefusalsMax: integer('POSTBACK_REFUSALS_MAX', 'Postbacks refused before the log (event_logged: false) kept for the operator page: the newest this many, in a capped Redis stream with REDIS_URL (about this many), else in this process\'s memory.', 10_000, 100, 1_000_000),
  postbackRefusalsPerAddress: integer('POSTBACK_REFUSALS_PER_ADDRESS', 'Refused postbacks from one source address (an IPv6 one by its /64, as the rate limits count it) kept for the operator page per minute (per API process); the rest are counted in postback_refusals_lost_total{why="source_over_budget"}, so one caller cannot push everyone else\'s refusals out of the store.', 120, 1, 1_000_000),
  offerInfoCacheEntries: integer('OFFER_INFO_CACHE_ENTRIES', 'Answers, contents and link mappings each API process keeps for GET /v1/offers/info (each emptied when the offers projection applies an event). 0: every request reads Postgres.', 50_000, 0, 1_000_000),
  instanceCacheEntries: derivedInteger(
    'INSTANCE_CACHE_ENTRIES',
    'Served cards each API process keeps for POST /v1/offers/instances once read (a served card never changes; all are dropped when the process stops hearing projector commits). About 210 bytes each (room reserved for more included), outside the JavaScript heap (instance_cache_bytes on /metrics). Unset: a sixteenth of the memory the process may use (the smaller of its container\'s limit and its heap limit) in cards, from 1,000 to 500,000 (instance_cache_max_cards on /metrics: 114,688 in a 512 MB container, 147,456 with --max-old-space-size=384, 500,000 with a heap limit and container of 2 GB or more). 0: every request reads Postgres.',
    () => defaultInstanceCacheEntries(),
    0,
    10_000_000,
  ),
  projectors: oneOf('PROJECTORS', 'Where the read models are built: inline (in the API process) or separate (only services/projector/main.ts processes; production, with DATABASE_URL: the embedded default\'s DATA_DIR has one owner).', 'inline', ['inline', 'separate'] as const),
  anonymousQuery: oneOf('ANONYMOUS_QUERY', 'Query without placement_id, with a Live or Test key or without one: on (served anonymously through the default placement to the default application) or off (401; an application sends one of its placements). The shared sandbox key always serves through the default placement.', 'on', ['on', 'off'] as const),
  trustedGeoHeaders: subsetOf('TRUSTED_GEO_HEADERS', 'Provider region headers Query takes the caller\'s location from (comma list of cloudflare, cloudfront, vercel; first family present wins). Empty: no location; only trust a family whose CDN fronts every request.', ['cloudflare', 'cloudfront', 'vercel'] as const),
  logLevel: oneOf('LOG_LEVEL', 'pino log level. At info the API writes one access line a request (method, URL with credentials redacted, status, time; the URL cut to 2 KB and the Host to 256 bytes, their control and format characters escaped; not for /healthz, /readyz, /metrics and /openapi.json, which are polled) and the projector one a batch; both write their start-up and background lines (migrations, the catalog, projection failures) as JSON on stdout too, and only a refused start is a plain line on stderr. The Kafka client\'s errors go to stderr in the same JSON, each repeated one once per 30 s; silent or fatal leaves them out, debug adds its notes.', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
} as const;

type Parsed<S> = { -readonly [K in keyof S]: S[K] extends { parse(raw: string | undefined): infer T } ? T : never };
export type Config = Omit<Parsed<typeof settings>, 'linkBase'> & { linkBase: string; embedded: { database: boolean; eventLog: boolean } };

/** The longest topic name Kafka takes. */
const KAFKA_TOPIC_NAME_MAX = 249;

/** LINK_BASE when unset: the API's own address, a wildcard one (all interfaces) as the loopback. */
export function ownLinkBase(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}/l`;
}

/** Parses the environment; throws SettingError naming the first variable that is wrong. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const values = Object.fromEntries(
    Object.entries(settings).map(([key, setting]) => [key, setting.parse(env[setting.name])]),
  ) as Parsed<typeof settings>;

  if (values.kafkaBrokers && !values.schemaRegistryUrl) {
    throw new SettingError('SCHEMA_REGISTRY_URL', 'is required when KAFKA_BROKERS is set');
  }
  if (values.schemaRegistryUrl && !values.kafkaBrokers) {
    throw new SettingError('KAFKA_BROKERS', 'is required when SCHEMA_REGISTRY_URL is set');
  }
  if (values.databaseUrl && !values.keyHashSecret) {
    throw new SettingError('KEY_HASH_SECRET', 'is required when DATABASE_URL is set (32 characters or more)');
  }
  if (values.geoCatalogSha256 && !values.geoCatalogFile) {
    throw new SettingError('GEO_CATALOG_FILE', 'is required when GEO_CATALOG_SHA256 is set');
  }
  if (!values.databaseUrl && values.projectors === 'separate') {
    throw new SettingError('PROJECTORS', 'separate needs DATABASE_URL: on the embedded default one process owns DATA_DIR, so its projectors run in it (inline, the default)');
  }
  const longestTopic = Math.max(...TOPICS.map((design) => design.topic.length));
  if (values.topicPrefix.length + longestTopic > KAFKA_TOPIC_NAME_MAX) {
    // Kafka would create the topics that fit and refuse the rest, as an error about Kafka.
    throw new SettingError('TOPIC_PREFIX', `must be at most ${KAFKA_TOPIC_NAME_MAX - longestTopic} characters (a Kafka topic name has at most ${KAFKA_TOPIC_NAME_MAX}, and topic names go up to ${longestTopic} after it), got ${values.topicPrefix.length}`);
  }
  if (!values.databaseUrl) checkWritableFolder('DATA_DIR', values.dataDir);
  if (values.geoIndexCacheDir !== undefined && values.geoIndexCacheDir !== 'off') checkWritableFolder('GEO_INDEX_CACHE_DIR', values.geoIndexCacheDir);
  return {
    ...values,
    linkBase: values.linkBase ?? ownLinkBase(values.host, values.port),
    embedded: { database: !values.databaseUrl, eventLog: !values.kafkaBrokers },
  };
}

/** For process entry points: one line on stderr naming the variable, then exit code 2. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof SettingError) exitOnSettingError(error);
    throw error;
  }
}
