-- The ledger's identities compare in byte order (COLLATE "C"), whatever the database's default
-- collation: the conversions export lists rows by (partner_id, identity_key) through the primary
-- key, and two deployments (or a database restored under another locale) must list the same ledger
-- in the same order. postback_log's columns follow, so the two tables still compare their
-- identities without a collation conflict. Equality is unchanged (both collations are deterministic).
ALTER TABLE conversions
  ALTER COLUMN partner_id TYPE text COLLATE "C",
  ALTER COLUMN identity_key TYPE text COLLATE "C";
ALTER TABLE postback_log
  ALTER COLUMN partner_id TYPE text COLLATE "C",
  ALTER COLUMN identity_key TYPE text COLLATE "C";
