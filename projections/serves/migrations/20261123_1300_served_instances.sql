-- Served cards, one row per OfferServed (topic `serves`). An instance id is minted once, so the
-- first event of an id is its row; a replay writes the same rows.
CREATE TABLE served_instances (
  offer_instance_id  text        PRIMARY KEY,
  application_id     text        NOT NULL,
  placement_id       text,
  offer_id           text        NOT NULL,
  served_at          timestamptz NOT NULL,
  environment        text        NOT NULL CHECK (environment IN ('live', 'test', 'sandbox')),
  anonymous          boolean     NOT NULL,
  location_id        text,
  link_code          text,
  link_url           text,
  destination_url    text
);
-- Clicks and offer info find a card by its short link's code; codes are minted unique.
CREATE UNIQUE INDEX served_instances_by_link_code ON served_instances (link_code) WHERE link_code IS NOT NULL;
