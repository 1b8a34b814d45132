-- Internal read models of the `offers` topic, written by the separate `offer-internal`
-- projection. No public route reads these tables.

-- Partner-authored targeting, one row per (rule, mode, location). An offer without rows has no
-- targeting. A location matches itself or any descendant; exclude wins (evaluated elsewhere).
CREATE TABLE offer_targeting (
  offer_id     text     NOT NULL,
  rule_index   smallint NOT NULL,
  mode         text     NOT NULL CHECK (mode IN ('include', 'exclude')),
  location_id  bigint   NOT NULL,
  PRIMARY KEY (offer_id, rule_index, mode, location_id)
);
CREATE INDEX offer_targeting_by_location ON offer_targeting (location_id);

-- Credentials, settlement contract and recommendation context of an offer.
CREATE TABLE offer_internals (
  offer_id                text  PRIMARY KEY,
  remote_endpoint         text,
  credentials             jsonb NOT NULL,
  settlement_contract     text,
  recommendation_context  jsonb NOT NULL,
  last_event_id           text  NOT NULL
);
