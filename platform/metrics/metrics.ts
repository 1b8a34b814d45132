import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The Prometheus registry of one process, with the series every part of the service reports. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    /** Refreshed right before each scrape (e.g. projector lag, which is read, not counted). */
    beforeScrape: [] as (() => Promise<void>)[],
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    httpRefusedBeforeRouting: new Counter({
      name: 'http_requests_refused_before_routing_total',
      help: 'Requests answered by the connection layer before any route ran (malformed, too large, too slow, an unmet Expect, arriving at shutdown): not in http_request_duration_seconds; by status and cause (the parser error code, expectation or shutdown)',
      labelNames: ['status', 'cause'] as const,
      registers: [registry],
    }),
    eventsProduced: new Counter({
      name: 'events_produced_total',
      help: 'Events appended to the log, by topic and event type',
      labelNames: ['topic', 'type'] as const,
      registers: [registry],
    }),
    eventLogWrites: new Counter({
      name: 'event_log_writes_total',
      help: 'Writes to the log (Kafka produce requests, or transactions of the embedded log): concurrent appends share one, so events_produced_total / this is the batching',
      registers: [registry],
    }),
    appendProducersReplaced: new Counter({
      name: 'event_log_producers_replaced_total',
      help: 'Kafka producers replaced after a failed send (the broker may have written it; see restarting-producer.ts)',
      registers: [registry],
    }),
    eventsConsumed: new Counter({
      name: 'events_consumed_total',
      help: 'Events applied by projectors, by projection and topic',
      labelNames: ['projection', 'topic'] as const,
      registers: [registry],
    }),
    partitionsUnlikeDesign: new Gauge({
      name: 'event_log_partitions_unlike_design',
      help: 'Per topic this process ensured at its start: 1 when its partition count on the broker differs from the designed one (schemas/topics.ts; the start-up log says what it means), else 0',
      labelNames: ['topic'] as const,
      registers: [registry],
    }),
    projectorLag: new Gauge({
      name: 'projector_lag_events',
      help: 'Events in the log not yet applied, by projection and topic-partition',
      labelNames: ['projection', 'topic', 'partition'] as const,
      registers: [registry],
    }),
    instanceCacheCards: new Gauge({
      name: 'instance_cache_cards',
      help: 'Served cards this API process keeps for POST /v1/offers/instances (INSTANCE_CACHE_ENTRIES bounds it)',
      registers: [registry],
    }),
    instanceCacheMaxCards: new Gauge({
      name: 'instance_cache_max_cards',
      help: 'The most served cards this API process keeps (INSTANCE_CACHE_ENTRIES, by default derived from the memory the process may use)',
      registers: [registry],
    }),
    instanceCacheBytes: new Gauge({
      name: 'instance_cache_bytes',
      help: 'Bytes the kept served cards hold (their tables and text, room reserved for more included)',
      registers: [registry],
    }),
    readAfterWrite: new Histogram({
      name: 'read_after_write_seconds',
      help: 'From the start of an append until a projection has applied it (serves: sampled from Query answers; the postback ledger: each decision waited for)',
      labelNames: ['projection'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    postbacksInFlight: new Gauge({
      name: 'postbacks_in_flight',
      help: 'Postbacks this API process has admitted and not finished (answer sent and intake ended); POSTBACK_MAX_IN_FLIGHT bounds it',
      registers: [registry],
    }),
    postbackOverloadRefusals: new Counter({
      name: 'postback_overload_refusals_total',
      help: 'Postbacks answered 503 postback_v10_unavailable at once because POSTBACK_MAX_IN_FLIGHT were under way in this process (nothing logged; the partner retries)',
      registers: [registry],
    }),
    postbackRefusalsLost: new Counter({
      name: 'postback_refusals_lost_total',
      help: 'Postback refusals not kept in the diagnostics store (queue_full: Redis too slow; store_error: Redis failed; source_over_budget: POSTBACK_REFUSALS_PER_ADDRESS reached)',
      labelNames: ['why'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
