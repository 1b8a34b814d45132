-- Diagnostic read model of the `catalog` topic: proves the backbone (round trip, crash, replay).
CREATE TABLE catalog_entries (
  entry_id      text        PRIMARY KEY,
  name          text        NOT NULL,
  amount        numeric     NOT NULL,
  currency      text        NOT NULL,
  tags          jsonb       NOT NULL,
  recorded_at   timestamptz NOT NULL,
  removed       boolean     NOT NULL DEFAULT false,
  removal_reason text,
  last_event_id text        NOT NULL
);

-- Counts every applied event per entry. Unlike the upsert above this is not idempotent, on
-- purpose: an event applied twice shows up here, which is what the exactly-once tests check.
CREATE TABLE catalog_entry_tallies (
  entry_id       text    PRIMARY KEY,
  applied_events bigint  NOT NULL,
  amount_total   numeric NOT NULL
);
