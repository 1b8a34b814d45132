-- Read model of the `accounts` topic: developers, applications, API keys, placements and the
-- default placement. Written only by the accounts projection. Every entity's events share one
-- partition (developer id, or application id for apps, keys and placements), so `last_offset`
-- orders its changes: an update applies only when it comes from a later position (replay guard).
CREATE TABLE account_developers (
  developer_id      text        PRIMARY KEY,
  name              text        NOT NULL,
  email             text        NOT NULL,
  status            text        NOT NULL CHECK (status IN ('active', 'suspended')),
  status_reason     text,
  registered_at     timestamptz NOT NULL,
  status_changed_at timestamptz NOT NULL,
  last_offset       bigint      NOT NULL,
  last_event_id     text        NOT NULL
);

CREATE TABLE account_applications (
  application_id    text        PRIMARY KEY,
  developer_id      text        NOT NULL,
  name              text        NOT NULL,
  status            text        NOT NULL CHECK (status IN ('live', 'live_limited', 'paused', 'suspended')),
  status_reason     text,
  registered_at     timestamptz NOT NULL,
  status_changed_at timestamptz NOT NULL,
  last_offset       bigint      NOT NULL,
  last_event_id     text        NOT NULL
);
CREATE INDEX account_applications_developer ON account_applications (developer_id);

-- Only the keyed hash of a key is stored; authentication looks keys up by it.
CREATE TABLE account_api_keys (
  key_id            text        PRIMARY KEY,
  kind              text        NOT NULL CHECK (kind IN ('live', 'test', 'sandbox')),
  key_hash          text        NOT NULL UNIQUE,
  display_prefix    text        NOT NULL,
  application_id    text,
  label             text,
  issued_at         timestamptz NOT NULL,
  revoked_at        timestamptz,
  revocation_reason text,
  last_event_id     text        NOT NULL,
  CHECK ((kind = 'sandbox') = (application_id IS NULL))
);
CREATE INDEX account_api_keys_application ON account_api_keys (application_id);

CREATE TABLE account_placements (
  placement_id      text        PRIMARY KEY,
  application_id    text        NOT NULL,
  name              text        NOT NULL,
  status            text        NOT NULL CHECK (status IN ('active', 'inactive')),
  created_at        timestamptz NOT NULL,
  status_changed_at timestamptz NOT NULL,
  last_offset       bigint      NOT NULL,
  last_event_id     text        NOT NULL
);
CREATE INDEX account_placements_application ON account_placements (application_id);

-- At most one row: the latest DefaultPlacementDesignated (all on one partition, so offsets order them).
CREATE TABLE account_default_placement (
  singleton         boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  placement_id      text        NOT NULL,
  application_id    text        NOT NULL,
  designated_at     timestamptz NOT NULL,
  last_offset       bigint      NOT NULL,
  last_event_id     text        NOT NULL
);
