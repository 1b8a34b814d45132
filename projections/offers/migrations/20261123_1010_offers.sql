-- Public read models of the `offers` topic: what the offer routes may show. Internal fields
-- (targeting, credentials, contracts, recommendation context) never reach these tables; they
-- live in the internal tables of the next migration. See ../README.md.
CREATE TABLE offers (
  offer_id           text        PRIMARY KEY,
  partner_id         text        NOT NULL,
  upstream_offer_id  text,
  kind               text        NOT NULL CHECK (kind IN ('local', 'remote')),
  status             text        NOT NULL CHECK (status IN ('active', 'paused', 'pending', 'rejected', 'expired')),
  deleted            boolean     NOT NULL,
  delisted           boolean     NOT NULL,
  test_only          boolean     NOT NULL,
  -- false: no stored details; the other detail columns are then null.
  has_details        boolean     NOT NULL,
  title              text,
  category_id        text,
  description        text,
  entity_id          text,
  entity_name        text,
  entity_type        text,
  action_name        text,
  consumer_action    text,
  -- [{format, url, tag}] in document order.
  material           jsonb       NOT NULL DEFAULT '[]',
  updated_at         timestamptz NOT NULL,
  last_event_id      text        NOT NULL
);
CREATE INDEX offers_by_partner ON offers (partner_id);

-- Goals of a local offer's details, in document order. Money stays exact: numeric, rendered back
-- as the decimal string it was written as (numeric keeps its scale).
CREATE TABLE offer_goals (
  offer_id   text     NOT NULL,
  position   smallint NOT NULL,
  event      text     NOT NULL,
  model      text     NOT NULL CHECK (model IN ('cpa', 'cps')),
  amount     numeric,
  currency   text,
  rate       numeric,
  PRIMARY KEY (offer_id, position)
);

-- Snapshots of remote offers' public content, stored verbatim (JSON text, validated by readers:
-- a malformed snapshot must surface as 503, so it cannot be refused here).
CREATE TABLE offer_snapshots (
  snapshot_id    text        PRIMARY KEY,
  offer_id       text        NOT NULL,
  language       text,
  active         boolean     NOT NULL,
  updated_at     timestamptz NOT NULL,
  content        text        NOT NULL,
  published_at   timestamptz NOT NULL,
  last_event_id  text        NOT NULL
);
CREATE INDEX offer_snapshots_active ON offer_snapshots (offer_id, updated_at DESC, snapshot_id) WHERE active;

-- Tracked links on the link origin, by their identifying path segment. The three shapes cannot
-- collide: 8 alphanumerics, a 36-character UUID, or an st_ token (underscore).
CREATE TABLE tracked_links (
  code               text        PRIMARY KEY,
  shape              text        NOT NULL CHECK (shape IN ('short_code', 'instance_uuid', 'static_path')),
  offer_id           text        NOT NULL,
  offer_instance_id  text,
  application_id     text,
  target_url         text,
  registered_at      timestamptz NOT NULL,
  event_id           text        NOT NULL
);
CREATE INDEX tracked_links_by_offer ON tracked_links (offer_id);
