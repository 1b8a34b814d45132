-- The FULL location catalog: every active record of the pinned geo-target release, with its
-- verified chain precomputed at load time. Rows are keyed by release so a new release can be
-- loaded beside the serving one and switched in one transaction. See ../README.md.

CREATE TABLE geo_full_releases (
  release_id        integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  source_file_date  text        NOT NULL,
  file_name         text        NOT NULL,
  file_sha256       text        NOT NULL,
  source_rows       integer     NOT NULL,
  active_rows       integer     NOT NULL,
  -- Signs search cursors; a new release invalidates the old release's cursors.
  cursor_secret     text        NOT NULL,
  is_current        boolean     NOT NULL DEFAULT false,
  loaded_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX geo_full_releases_one_current ON geo_full_releases (is_current) WHERE is_current;

CREATE TABLE geo_full_locations (
  release_id                 integer  NOT NULL REFERENCES geo_full_releases (release_id) ON DELETE CASCADE,
  location_id                bigint   NOT NULL,
  name                       text     NOT NULL,
  canonical_name             text     NOT NULL,
  country_code               text     NOT NULL,
  target_type                text     NOT NULL,
  source_parent_location_id  text,
  parent_location_id         bigint,
  chain_status               text     NOT NULL CHECK (chain_status IN ('COMPLETE', 'UNRESOLVED_SOURCE_PARENT')),
  unresolved_source_parent_location_id text,
  hierarchy_precision        smallint NOT NULL CHECK (hierarchy_precision >= 1),
  legacy_level               text     CHECK (legacy_level IN ('COUNTRY', 'REGION', 'CITY')),
  -- Verified chain root-to-self, ending with location_id itself.
  path_ids                   bigint[] NOT NULL,
  -- Search keys: lower-cased, accents removed, punctuation as single spaces (see search-text.ts).
  type_bucket                smallint NOT NULL,
  name_norm                  text     COLLATE "C" NOT NULL,
  text_norm                  text     COLLATE "C" NOT NULL,
  PRIMARY KEY (release_id, location_id)
);
-- Ranked search reads each (type bucket) in (name_norm, location_id) order and stops at the page size.
CREATE INDEX geo_full_locations_by_name ON geo_full_locations (release_id, type_bucket, name_norm, location_id);
CREATE INDEX geo_full_locations_by_country ON geo_full_locations (release_id, country_code, type_bucket, name_norm, location_id);
CREATE INDEX geo_full_locations_by_parent ON geo_full_locations (release_id, parent_location_id, type_bucket, name_norm, location_id)
  WHERE parent_location_id IS NOT NULL;

-- Every distinct word of name and canonical_name, for the word-prefix tier on both engines.
CREATE TABLE geo_full_words (
  release_id   integer NOT NULL REFERENCES geo_full_releases (release_id) ON DELETE CASCADE,
  type_bucket  smallint NOT NULL,
  word         text    COLLATE "C" NOT NULL,
  location_id  bigint  NOT NULL,
  PRIMARY KEY (release_id, type_bucket, word, location_id)
);
