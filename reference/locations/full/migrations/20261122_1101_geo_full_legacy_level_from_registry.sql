-- legacy_level is now read from the LEGACY registry (legacy_registry_locations.level) when a FULL
-- location is served, so the label always agrees with the registry; the stored copy goes.
ALTER TABLE geo_full_locations DROP COLUMN legacy_level;
