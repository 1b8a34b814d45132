-- Link codes handed to Query's cards, claimed before use (commands/serves/link-code-claims.ts):
-- Query answers once its serves are logged, before they are projected, so two processes that
-- minted the same random code at the same moment would otherwise both hand it out. The primary
-- key gives it to one of them. Not a read model (not rebuilt from the log): once a claimed code's
-- serve is in served_instances the read model guards it, so claims are kept for minutes only.
CREATE TABLE link_code_claims (
  code        text        PRIMARY KEY,
  claimed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX link_code_claims_by_age ON link_code_claims (claimed_at);
