-- OfferUpserted v2 carries the offer's destination (frozen into each serve). It is not public
-- content, so it lives with the internals; events before v2 read as null.
ALTER TABLE offer_internals ADD COLUMN destination_url text;
