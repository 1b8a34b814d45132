/**
 * Every way the postback route can refuse or defer a request: the stable lowercase `reason`, its
 * HTTP status and envelope `code`, and whether a retry of the same postback can succeed. The
 * README's reasons table is this list.
 */
export const POSTBACK_REASONS = {
  invalid_payload: { status: 400, code: 'INVALID_PAYLOAD', retryable: false, when: 'a field of the wrong type or form: bad decimal, bad id, amount without currency, a value that is not UTF-8; on the current route also a body that is not a closed JSON object of the contract (an unknown field: the compatibility routes ignore unknown parameters), and a request the HTTP parser refuses (a malformed header, Content-Length with Transfer-Encoding, headers over 16 KB)' },
  unsupported_protocol_version: { status: 400, code: 'UNSUPPORTED_PROTOCOL_VERSION', retryable: false, when: 'SVC-Protocol-Version missing or not exactly 1.0 (current route)' },
  query_parameters_not_allowed: { status: 400, code: 'QUERY_PARAMETERS_NOT_ALLOWED', retryable: false, when: 'the current route was called with a query string' },
  signature_headers_not_allowed: { status: 400, code: 'SIGNATURE_HEADERS_NOT_ALLOWED', retryable: false, when: 'a signature, timestamp or nonce header was sent (postbacks carry none)' },
  missing_attribution: { status: 400, code: 'MISSING_ATTRIBUTION', retryable: false, when: 'none of svc_click_id, svc_tracking_id, offer_instance_id' },
  missing_identity: { status: 400, code: 'MISSING_IDENTITY', retryable: false, when: 'none of event_id, order_id, partner_txn_id' },
  partner_not_found: { status: 404, code: 'PARTNER_NOT_FOUND', retryable: false, when: 'no partner has this id (partner ids are canonical lowercase UUIDs), or the path is not `/v1/postback/{partner_id}` (a trailing slash, more segments)' },
  partner_disabled: { status: 403, code: 'PARTNER_DISABLED', retryable: false, when: 'the partner exists but its postback route is disabled' },
  source_ip_not_allowed: { status: 403, code: 'SOURCE_IP_NOT_ALLOWED', retryable: false, when: "the caller's address is not in the partner's allowlist" },
  attribution_not_found: { status: 404, code: 'ATTRIBUTION_NOT_FOUND', retryable: false, when: 'an attribution id names no click, link or card (and is not a just-minted one)' },
  attribution_conflict: { status: 409, code: 'ATTRIBUTION_CONFLICT', retryable: false, when: 'the attribution ids sent name different cards: another offer, served card, application or environment (a static or registered link is no card, so its click or code never goes with a card\'s id)' },
  foreign_attribution: { status: 403, code: 'FOREIGN_ATTRIBUTION', retryable: false, when: "the attributed offer belongs to another partner (an offer's partner never changes: `offer:upsert` refuses another `partner_id` for an existing offer)" },
  missing_amount: { status: 422, code: 'MISSING_AMOUNT', retryable: false, when: 'the mapped goal is priced per sale (cps) and no amount and currency were sent' },
  invalid_goal_pricing: { status: 422, code: 'INVALID_GOAL_PRICING', retryable: false, when: "the mapped goal's own pricing cannot price a conversion (e.g. a currency unknown to ISO 4217); fix the offer, then send again" },
  identity_conflict: { status: 409, code: 'IDENTITY_CONFLICT', retryable: false, when: 'the ledger already holds this identity with a different payload (logged, not counted)' },
  unsupported_media_type: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', retryable: false, when: 'current route: Content-Type not application/json (a POST is the compatibility route only when it is a form without SVC-Protocol-Version); either route: a charset other than UTF-8 (or US-ASCII), or two, or a Content-Encoding other than `identity` (an empty one is none)' },
  payload_too_large: { status: 413, code: 'PAYLOAD_TOO_LARGE', retryable: false, when: 'body over 16 KiB (a postback is a few fields)' },
  request_timeout: { status: 408, code: 'REQUEST_TIMEOUT', retryable: false, when: 'the request (headers and body) did not arrive within REQUEST_TIMEOUT_MS; not logged; like every 4xx (reference) not retryable as it was sent: send the whole body at once (when the headers never arrived, the path is unknown and the answer is the generic envelope)' },
  expectation_failed: { status: 417, code: 'EXPECTATION_FAILED', retryable: false, when: 'an Expect header other than 100-continue; not logged' },
  method_not_allowed: { status: 405, code: '405', retryable: false, when: "a method other than POST (current) or GET/POST (compatibility), whatever the method (TRACE, CONNECT, WebDAV's, and one the HTTP parser does not know such as BREW or a lowercase get, included); `Allow: GET, POST`" },
  internal_error: { status: 500, code: 'INTERNAL_ERROR', retryable: true, when: 'an unexpected failure before intake; nothing was logged' },
  postback_v10_unavailable: { status: 503, code: 'POSTBACK_V10_UNAVAILABLE', retryable: true, when: 'intake unavailable: the log or the read models cannot be reached or do not answer within 5 s, a just-minted attribution id is not projected yet, this instance is shutting down, or it is at capacity (POSTBACK_MAX_IN_FLIGHT postbacks under way, answered at once: see Under overload); not logged (a postback waiting behind another write when the log stalls is taken back; only one already sent to a hung log may still be written when it answers: the retry, with the same identity and payload, then gets its decision)' },
  postback_intake_unavailable: { status: 503, code: 'POSTBACK_INTAKE_UNAVAILABLE', retryable: true, when: 'logged, but the ledger did not decide in time; the retry gets already_recorded' },
} as const satisfies Record<string, { status: number; code: string; retryable: boolean; when: string }>;

export type PostbackReason = keyof typeof POSTBACK_REASONS;

/** A refusal of the intake; the route renders it with the reason's status and code. */
export class PostbackRejection extends Error {
  constructor(
    readonly reason: PostbackReason,
    detail: string,
    /** True once the postback is in the log (a conflict, or a decision that did not come in time). */
    readonly eventLogged = false,
  ) {
    super(detail);
    this.name = 'PostbackRejection';
  }
}
