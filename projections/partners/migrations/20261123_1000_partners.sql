-- Read model of the `partners` topic (PartnerConfigured): the current configuration of each
-- supply partner, as the postback route reads it. See ../README.md.
CREATE TABLE partners (
  partner_id     text        PRIMARY KEY,
  name           text        NOT NULL,
  enabled        boolean     NOT NULL,
  configured_at  timestamptz NOT NULL,
  last_event_id  text        NOT NULL
);

-- Source networks a partner's postbacks may come from; `inet <<= network` checks an address.
CREATE TABLE partner_source_networks (
  partner_id  text NOT NULL,
  network     cidr NOT NULL,
  PRIMARY KEY (partner_id, network)
);

-- A postback's event_name → the offer goal (goals[].event) it counts as.
CREATE TABLE partner_goal_mappings (
  partner_id  text NOT NULL,
  event_name  text NOT NULL,
  goal_event  text NOT NULL,
  PRIMARY KEY (partner_id, event_name)
);
