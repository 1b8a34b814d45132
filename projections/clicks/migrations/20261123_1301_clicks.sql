-- Clicks on tracked links (topic `clicks`), one row per svc_click_id: what a postback's
-- svc_click_id is attributed through (click → instance or link → offer → application).
CREATE TABLE clicks (
  svc_click_id       text        PRIMARY KEY,
  link_shape         text        NOT NULL,
  link_code          text        NOT NULL,
  offer_instance_id  text,
  application_id     text,
  offer_id           text        NOT NULL,
  environment        text        NOT NULL CHECK (environment IN ('live', 'test', 'sandbox')),
  clicked_at         timestamptz NOT NULL,
  sub_id1            text,
  sub_id2            text,
  sub_id3            text,
  sub_id4            text,
  sub_id5            text,
  redirect_url       text        NOT NULL
);
CREATE INDEX clicks_by_instance ON clicks (offer_instance_id) WHERE offer_instance_id IS NOT NULL;
CREATE INDEX clicks_by_link_code ON clicks (link_code);
