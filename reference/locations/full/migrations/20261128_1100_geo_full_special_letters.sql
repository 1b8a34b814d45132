-- Search keys fold the letters decomposition leaves alone as LEGACY does (special-letters.ts:
-- ß → ss, ł → l, ø → o, ...), so "Łódź" finds "Lodz". Stored keys were folded without it; the
-- mapping turns letters into letters, so applying it to a stored key gives the key folding with it.
UPDATE geo_full_locations
   SET name_norm = replace(replace(replace(replace(translate(name_norm, 'ςøđðłıħ', 'σoddlih'), 'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'þ', 'th'),
       text_norm = replace(replace(replace(replace(translate(text_norm, 'ςøđðłıħ', 'σoddlih'), 'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'þ', 'th')
 WHERE name_norm ~ '[ßςøæœđðłıþħ]' OR text_norm ~ '[ßςøæœđðłıþħ]';
