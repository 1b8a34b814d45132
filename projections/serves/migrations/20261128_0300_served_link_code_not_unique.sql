-- A card's row must never be lost to another card's link code. Codes are minted unique (claimed in
-- link_code_claims first), but a claim is kept ten minutes: a projector stalled longer than that
-- could meet two serves of one code, and under the unique index the second card was dropped
-- unheard (its id read not_found for good). Both rows are kept now; a code opens its first card
-- (findServeByLinkCode), the same on every replay.
DROP INDEX served_instances_by_link_code;
CREATE INDEX served_instances_by_link_code ON served_instances (link_code, served_at, offer_instance_id) WHERE link_code IS NOT NULL;
