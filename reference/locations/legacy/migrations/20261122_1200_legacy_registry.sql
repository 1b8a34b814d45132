-- The LEGACY registry v1: three levels derived from the current FULL release by
-- buildLegacyRegistry (../build.ts), rebuilt whole in one transaction. See ../README.md.

CREATE TABLE legacy_registry_locations (
  location_id         bigint PRIMARY KEY,
  name                text   NOT NULL,
  canonical_name      text   NOT NULL,
  country_code        text   NOT NULL CHECK (country_code ~ '^[A-Z]{2}$'),
  target_type         text   NOT NULL,
  level               text   NOT NULL CHECK (level IN ('COUNTRY', 'REGION', 'CITY')),
  -- Immediate registry parent: null for countries, a country for regions, a region or country for cities.
  parent_location_id  bigint REFERENCES legacy_registry_locations (location_id),
  iso_3166_2          text   UNIQUE CHECK (iso_3166_2 ~ '^[A-Z]{2}-[A-Z0-9]{1,3}$'),
  cldr_subdivision    text   UNIQUE CHECK (cldr_subdivision ~ '^[A-Z]{2}[A-Z0-9]{1,3}$'),
  provider_short      text   CHECK (provider_short ~ '^[A-Z0-9]{1,3}$'),
  -- How the codes were matched (match.ts tiers), for the coverage report.
  code_match          text,
  CHECK ((level = 'COUNTRY') = (parent_location_id IS NULL)),
  CHECK (level = 'REGION' OR (iso_3166_2 IS NULL AND cldr_subdivision IS NULL AND provider_short IS NULL))
);
CREATE UNIQUE INDEX legacy_registry_provider_short ON legacy_registry_locations (country_code, provider_short)
  WHERE provider_short IS NOT NULL;
CREATE INDEX legacy_registry_children ON legacy_registry_locations (parent_location_id);

-- The one current build: which release it was derived from, and with which code sources.
CREATE TABLE legacy_registry_build (
  singleton         boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  registry_version  text        NOT NULL,
  source_file_date  text        NOT NULL,
  -- Release sha256 + code sources + derivation version: equal fingerprints mean nothing to rebuild.
  fingerprint       text        NOT NULL,
  code_sources      text        NOT NULL,
  countries         integer     NOT NULL,
  regions           integer     NOT NULL,
  cities            integer     NOT NULL,
  regions_with_codes integer    NOT NULL,
  built_at          timestamptz NOT NULL DEFAULT now()
);
