-- The event log of the embedded default (and of any deployment without Kafka): one row per
-- event, offsets gapless per topic-partition, values in the Confluent wire format.
CREATE TABLE event_log_partitions (
  topic       text    NOT NULL,
  partition   integer NOT NULL,
  next_offset bigint  NOT NULL DEFAULT 0,
  PRIMARY KEY (topic, partition)
);

CREATE TABLE event_log (
  topic       text        NOT NULL,
  partition   integer     NOT NULL,
  "offset"    bigint      NOT NULL,
  key         text        NOT NULL,
  value       bytea       NOT NULL,
  appended_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (topic, partition, "offset")
);

-- The embedded schema registry: ids are what the wire format carries.
CREATE TABLE embedded_schemas (
  id          serial PRIMARY KEY,
  subject     text NOT NULL,
  schema_text text NOT NULL,
  UNIQUE (subject, schema_text)
);

-- Projector bookkeeping: the next offset each projection will apply, written in the same
-- transaction as the rows it produced. This table, not the log's consumer group, is the truth.
CREATE TABLE projection_offsets (
  projection  text        NOT NULL,
  topic       text        NOT NULL,
  partition   integer     NOT NULL,
  next_offset bigint      NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (projection, topic, partition)
);
