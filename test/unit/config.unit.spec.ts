import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { runCli } from '../support/cli.js';

const valid = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/offer_ledger',
  KEY_HASH_SECRET: 'k'.repeat(32),
};

describe('configuration', () => {
  it('runs on the embedded default when no backend is set', () => {
    const config = loadConfig({});
    expect(config.embedded).toEqual({ database: true, eventLog: true });
    expect(config.port).toBe(8080);
    expect(config.dataDir).toBe('.data');
  });

  it('puts tracked links on the API itself unless LINK_BASE says otherwise, so a card served on another PORT can be opened', () => {
    expect(loadConfig({}).linkBase).toBe('http://127.0.0.1:8080/l');
    expect(loadConfig({ PORT: '18081' }).linkBase).toBe('http://127.0.0.1:18081/l');
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).linkBase).toBe('http://127.0.0.1:9000/l');
    expect(loadConfig({ HOST: '::1', PORT: '9000' }).linkBase).toBe('http://[::1]:9000/l');
    expect(loadConfig({ HOST: 'api.internal', PORT: '9000' }).linkBase).toBe('http://api.internal:9000/l');
    expect(loadConfig({ PORT: '9000', LINK_BASE: 'https://go.example/l' }).linkBase).toBe('https://go.example/l');
  });

  it('uses Kafka and Postgres when they are set', () => {
    const config = loadConfig({ ...valid, KAFKA_BROKERS: 'a:9092,b:9093', SCHEMA_REGISTRY_URL: 'http://r:8081/apis/ccompat/v7' });
    expect(config.embedded).toEqual({ database: false, eventLog: false });
    expect(config.kafkaBrokers).toEqual(['a:9092', 'b:9093']);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT must be a whole number from 0 to 65535, got "eighty"'],
    [{ PORT: '70000' }, 'PORT must be a whole number from 0 to 65535, got 70000'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must use postgres: or postgresql:, got "mysql:"'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL must be a URL (postgres: or postgresql:), got "not a url"'],
    [{ DATABASE_URL: valid.DATABASE_URL }, 'KEY_HASH_SECRET is required when DATABASE_URL is set (32 characters or more)'],
    [{ ...valid, KEY_HASH_SECRET: 'short' }, 'KEY_HASH_SECRET must be at least 32 characters long'],
    [{ KAFKA_BROKERS: 'localhost' }, 'KAFKA_BROKERS must be host:port[,host:port...], got "localhost"'],
    [{ KAFKA_BROKERS: '127.0.0.1:9092' }, 'SCHEMA_REGISTRY_URL is required when KAFKA_BROKERS is set'],
    [{ SCHEMA_REGISTRY_URL: 'http://r:8081' }, 'KAFKA_BROKERS is required when SCHEMA_REGISTRY_URL is set'],
    [{ KAFKA_BROKERS: '127.0.0.1:9092', SCHEMA_REGISTRY_URL: 'ftp://r' }, 'SCHEMA_REGISTRY_URL must use http: or https:, got "ftp:"'],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL must use redis: or rediss:, got "http:"'],
    [{ REDIS_URL: 'redis://127.0.0.1:6379/cache' }, 'REDIS_URL must have a database number (redis://host:6379/0) or nothing as its path, got "/cache"'],
    [{ LINK_BASE: 'nope' }, 'LINK_BASE must be a URL (http: or https:), got "nope"'],
    // Links are the base, a slash and the code: after a query or fragment no one could open them.
    [{ LINK_BASE: 'https://go.example/l?x=1' }, 'LINK_BASE must not carry a ?query or #fragment (paths are added after it), got "https://go.example/l?x=1"'],
    [{ LINK_BASE: 'https://go.example/l#top' }, 'LINK_BASE must not carry a ?query or #fragment (paths are added after it), got "https://go.example/l#top"'],
    [{ LINK_BASE: 'https://go.example/l?' }, 'LINK_BASE must not carry a ?query or #fragment (paths are added after it), got "https://go.example/l?"'],
    [{ LINK_BASE: 'https://u:p@go.example/l' }, 'LINK_BASE must not carry a user or password (user:password@), got "https://[redacted]@go.example/l"'],
    // proxy-addr takes no /0, and a zone never matches a peer address as the socket gives it.
    [{ TRUSTED_PROXIES: '10.0.0.1,0.0.0.0/0' }, 'TRUSTED_PROXIES must not hold a /0 network, which is every address, got "0.0.0.0/0"'],
    [{ TRUSTED_PROXIES: '::/0' }, 'TRUSTED_PROXIES must not hold a /0 network, which is every address, got "::/0"'],
    [{ TRUSTED_PROXIES: 'fe80::1%eth0' }, 'TRUSTED_PROXIES must list addresses without a zone (%...), got "fe80::1%eth0"'],
    [{ GEO_CATALOG_FILE: 'does-not-exist.csv' }, 'GEO_CATALOG_FILE names a file that does not exist: "does-not-exist.csv"'],
    [{ GEO_CATALOG_SHA256: 'abc' }, 'GEO_CATALOG_SHA256 must be 64 hexadecimal characters'],
    [{ GEO_CATALOG_SHA256: 'a'.repeat(64) }, 'GEO_CATALOG_FILE is required when GEO_CATALOG_SHA256 is set'],
    [{ TOPIC_PREFIX: 'bad prefix' }, 'TOPIC_PREFIX must be letters, digits, ".", "_" or "-", got "bad prefix"'],
    // Kafka would create the topics whose names fit and refuse the others, as an error about Kafka.
    [{ TOPIC_PREFIX: 'p'.repeat(241) }, 'TOPIC_PREFIX must be at most 240 characters (a Kafka topic name has at most 249, and topic names go up to 9 after it), got 241'],
    [{ LOCATION_RATE_LIMIT: '-1' }, 'LOCATION_RATE_LIMIT must be a whole number from 1 to 1000000, got "-1"'],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN must be at least 24 characters long'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
  ])('rejects %j with one message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  // The message goes to stderr and into whatever collects it: a password in a URL must not.
  it.each([
    [{ DATABASE_URL: 'postgres://app:pa/ss-w0rd@db:notaport/ledger' }, 'DATABASE_URL must be a URL (postgres: or postgresql:), got "postgres://[redacted]@db:notaport/ledger"'],
    [{ DATABASE_URL: 'postgres://app:pa#ss-w0rd@db/ledger' }, 'DATABASE_URL must be a URL (postgres: or postgresql:), got "postgres://[redacted]@db/ledger"'],
    [{ REDIS_URL: 'redis://:pa?ss-w0rd@cache:6379' }, 'REDIS_URL must be a URL (redis: or rediss:), got "redis://[redacted]@cache:6379"'],
    [{ KAFKA_BROKERS: 'k1:9092,app:pa/ss-w0rd@k2:9092' }, 'KAFKA_BROKERS must be host:port[,host:port...], got "k1:9092,[redacted]@k2:9092"'],
    // Parsed, the host would be what follows the first @ ("ss"), and the rest of the password its path.
    [{ DATABASE_URL: 'postgres://app:pa@ss/w0rd@db:5432/ledger' }, 'DATABASE_URL has an @ after its host; a user or password holding / ? # or @ must be percent-encoded (%2F %3F %23 %40), got "postgres://[redacted]@db:5432/ledger"'],
    [{ REDIS_URL: 'redis://:pa@ss/w0rd@cache:6379' }, 'REDIS_URL has an @ after its host; a user or password holding / ? # or @ must be percent-encoded (%2F %3F %23 %40), got "redis://[redacted]@cache:6379"'],
    [
      { KAFKA_BROKERS: '127.0.0.1:9092', SCHEMA_REGISTRY_URL: 'http://app:pa-ss-w0rd@r:8081/apis/ccompat/v7' },
      'SCHEMA_REGISTRY_URL must not carry a user or password (user:password@), got "http://[redacted]@r:8081/apis/ccompat/v7"',
    ],
  ])('rejects %j without quoting its password', (env, message) => {
    let thrown: unknown;
    try {
      loadConfig(env);
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).message).toBe(message);
    expect((thrown as Error).message).not.toContain('w0rd');
  });

  it('takes a TOPIC_PREFIX that leaves every topic name within Kafka\'s 249 characters', () => {
    expect(loadConfig({ ...valid, TOPIC_PREFIX: 'p'.repeat(240) }).topicPrefix).toHaveLength(240);
  });

  it.each(['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379/', 'redis://127.0.0.1:6379/3', 'rediss://:pw@cache:6380/12'])('takes REDIS_URL %s', (url) => {
    expect(loadConfig({ ...valid, REDIS_URL: url }).redisUrl).toBe(url);
  });

  it('takes a database and Redis URL with a password as they are', () => {
    const config = loadConfig({ ...valid, DATABASE_URL: 'postgres://app:s3cret@db:5432/ledger', REDIS_URL: 'redis://:s3cret@cache:6379' });
    expect(config.databaseUrl).toBe('postgres://app:s3cret@db:5432/ledger');
    expect(config.redisUrl).toBe('redis://:s3cret@cache:6379');
  });
});

describe('a process started with a bad setting', () => {
  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ KAFKA_BROKERS: '127.0.0.1:9092' }, 'SCHEMA_REGISTRY_URL'],
    [{ DATABASE_URL: 'postgres://127.0.0.1/x' }, 'KEY_HASH_SECRET'],
  ])('%j: prints one line naming %s and exits 2', async (env, variable) => {
    const result = await runCli('services/api/main.ts', [], env, 30_000);
    expect(result.status).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^error: configuration: ${variable} `));
  });
});
