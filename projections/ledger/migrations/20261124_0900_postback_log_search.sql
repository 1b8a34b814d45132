-- The operator page's searches of postback_log (queries.ts, postbackLogSearch), listed newest
-- first by (received_at DESC, correlation_id) with keyset pagination. Where the rows searched for
-- are a minority the indexes are partial, so the ledger projection's inserts pay little for them.
-- The partner, click and card searches use the indexes of the ledger's first migration.
-- IF NOT EXISTS: on a large live table they can be built beforehand with CREATE INDEX
-- CONCURRENTLY (same definitions), since migrations run in one transaction that holds writes.

-- No other condition, a time range, or decision = 'accepted' (most rows).
CREATE INDEX IF NOT EXISTS postback_log_by_time ON postback_log (received_at DESC, correlation_id);
-- The other decisions, in listing order.
CREATE INDEX IF NOT EXISTS postback_log_by_rare_decision ON postback_log (decision, received_at DESC, correlation_id) WHERE decision <> 'accepted';
-- A conversion's duplicates and conflicts, found by its correlation id.
CREATE INDEX IF NOT EXISTS postback_log_by_original ON postback_log (original_correlation_id) WHERE original_correlation_id <> correlation_id;
-- The identity fields as the partner sent them, whichever one the identity was taken from.
CREATE INDEX IF NOT EXISTS postback_log_by_event_id ON postback_log (event_id) WHERE event_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS postback_log_by_order_id ON postback_log (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS postback_log_by_partner_txn_id ON postback_log (partner_txn_id) WHERE partner_txn_id IS NOT NULL;
