-- Nothing reads geo_full_words any more: the API searches an in-memory index, and the SQL search
-- finds word prefixes in text_norm. Writing it took about a third of every catalog load.
DROP TABLE IF EXISTS geo_full_words;
