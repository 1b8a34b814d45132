-- text_norm keeps name and canonical name apart (' name | canonical '; search-text.ts), so no
-- match spans the two. Old texts are ' name canonical ': the canonical part follows the name's
-- 1 + length + 1 characters.
UPDATE geo_full_locations
   SET text_norm = ' ' || name_norm || ' | ' || substr(text_norm, length(name_norm) + 3)
 WHERE substr(text_norm, length(name_norm) + 2, 3) <> ' | ';
