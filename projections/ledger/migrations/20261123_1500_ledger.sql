-- The postback ledger, built only by the `ledger` projection from topic `postbacks`.
--
-- postback_log: every logged postback and what the ledger decided for it, one row per
-- PostbackReceived, chained per partition: hash = sha256(prev_hash || canonical decision).
CREATE TABLE postback_log (
  correlation_id           text        PRIMARY KEY,
  log_partition            integer     NOT NULL,
  log_offset               bigint      NOT NULL,
  partner_id               text        NOT NULL,
  identity_kind            text        NOT NULL CHECK (identity_kind IN ('event_id', 'order_id', 'partner_txn_id')),
  identity_key             text        NOT NULL,
  fingerprint              text        NOT NULL,
  decision                 text        NOT NULL CHECK (decision IN ('accepted', 'unmapped', 'already_recorded', 'identity_conflict')),
  -- The conversion a duplicate or a conflict was compared with; its own id otherwise.
  original_correlation_id  text        NOT NULL,
  channel                  text        NOT NULL,
  source_ip                text        NOT NULL,
  received_at              timestamptz NOT NULL,
  event_name               text        NOT NULL,
  event_id                 text,
  order_id                 text,
  partner_txn_id           text,
  amount                   numeric,
  currency                 text,
  reported_click_id        text,
  reported_tracking_id     text,
  reported_instance_id     text,
  matched_by               text        NOT NULL,
  offer_id                 text        NOT NULL,
  offer_instance_id        text,
  svc_click_id             text,
  application_id           text,
  environment              text        NOT NULL,
  goal_event               text,
  payout_amount            numeric,
  payout_currency          text,
  prev_hash                text        NOT NULL,
  hash                     text        NOT NULL,
  UNIQUE (log_partition, log_offset)
);
-- Operators search by partner and time, by identity, by click and by card.
CREATE INDEX postback_log_by_partner_time ON postback_log (partner_id, received_at DESC, correlation_id);
CREATE INDEX postback_log_by_identity ON postback_log (partner_id, identity_key);
CREATE INDEX postback_log_by_click ON postback_log (svc_click_id) WHERE svc_click_id IS NOT NULL;
CREATE INDEX postback_log_by_instance ON postback_log (offer_instance_id) WHERE offer_instance_id IS NOT NULL;

-- conversions: the ledger proper, one row per (partner, business identity), written by the first
-- postback of that identity (accepted: counted; unmapped: recorded, not counted).
CREATE TABLE conversions (
  partner_id         text        NOT NULL,
  identity_key       text        NOT NULL,
  identity_kind      text        NOT NULL,
  correlation_id     text        NOT NULL UNIQUE,
  fingerprint        text        NOT NULL,
  status             text        NOT NULL CHECK (status IN ('accepted', 'unmapped')),
  counted            boolean     NOT NULL,
  event_name         text        NOT NULL,
  event_id           text,
  order_id           text,
  partner_txn_id     text,
  amount             numeric,
  currency           text,
  matched_by         text        NOT NULL,
  offer_id           text        NOT NULL,
  offer_instance_id  text,
  svc_click_id       text,
  application_id     text,
  environment        text        NOT NULL,
  goal_event         text,
  payout_amount      numeric,
  payout_currency    text,
  received_at        timestamptz NOT NULL,
  log_partition      integer     NOT NULL,
  log_offset         bigint      NOT NULL,
  hash               text        NOT NULL,
  PRIMARY KEY (partner_id, identity_key)
);
CREATE INDEX conversions_by_offer ON conversions (offer_id, received_at);
CREATE INDEX conversions_by_instance ON conversions (offer_instance_id) WHERE offer_instance_id IS NOT NULL;
