import { POSTBACK_REASONS, type PostbackReason } from '../../../../commands/postbacks/rejections.js';
import { failure, success } from '../../../../platform/http/envelope.js';
import type { ResponseExample, ResponseExamples } from '../../../../platform/http/response-examples.js';
import { resultOf } from './respond.js';

/**
 * Example answers of the postback routes (reference: Postback route, its Errors and the rejection
 * example). A refusal's message is its reason; `event_logged` is true only where the postback is
 * in the log all the same.
 */

const CORRELATION_ID = '0192f7d2-8e4f-7a60-b1c2-d3e4f5a6b7c8';

const answer = (result: string) =>
  success({
    result,
    correlation_id: CORRELATION_ID,
    attribution: { matched_by: 'svc_click_id', offer_id: '0192f7c1-6a3e-7b2d-9c41-5e8f0a1b2c3d', offer_instance_id: '0192f7c4-0d15-7e9a-8b6c-2f4a6d8e0b1c', svc_click_id: '0192f7c5-21aa-7c3e-9d10-4b5c6d7e8f90' },
    ledger_position: { partition: 3, offset: '18446' },
  });

const accepted = {
  accepted: { summary: 'recorded and counted', value: answer('accepted') },
  already_recorded: { summary: 'the same identity and payload again: the original correlation id', value: answer('already_recorded') },
  unmapped: { summary: "recorded, not counted: the event maps to no goal of the offer", value: answer('unmapped') },
};

/** The refusals shown, each with when it happens. */
const SHOWN: Partial<Record<PostbackReason, string>> = {
  invalid_payload: 'an unknown field, a number or null in the body',
  unsupported_protocol_version: 'SVC-Protocol-Version missing or not 1.0',
  missing_attribution: 'no svc_click_id, svc_tracking_id or offer_instance_id',
  source_ip_not_allowed: "the caller's address is not in the partner's allowlist",
  partner_disabled: "the partner's postback route is disabled",
  partner_not_found: 'no partner has this id',
  attribution_not_found: 'the attribution id names no click, link or card',
  identity_conflict: 'the same identity with a different payload (logged, not counted)',
  payload_too_large: 'a body over 16 KiB',
  unsupported_media_type: 'a body that is not application/json',
  missing_amount: 'a goal priced per sale (cps) without amount and currency',
  invalid_goal_pricing: "the mapped goal's pricing cannot price a conversion",
  request_timeout: 'the body did not arrive within the server\'s timeout; nothing was logged',
  expectation_failed: 'an Expect header other than 100-continue',
  method_not_allowed: 'PUT (or any method but GET and POST) on the path',
  internal_error: 'an unexpected failure before intake; nothing was logged',
  postback_v10_unavailable: 'the log or the read models cannot be reached, or this instance is at capacity; nothing was logged',
  postback_intake_unavailable: 'logged, but the ledger did not decide in time; the retry gets already_recorded',
};

/** Refusals that leave the postback in the log. */
const LOGGED: PostbackReason[] = ['identity_conflict', 'postback_intake_unavailable'];

const refusal = (reason: PostbackReason): ResponseExample => ({
  summary: SHOWN[reason]!,
  value: failure(POSTBACK_REASONS[reason].code, reason, {
    result: resultOf(reason),
    reason,
    correlation_id: CORRELATION_ID,
    retryable: POSTBACK_REASONS[reason].retryable,
    event_logged: LOGGED.includes(reason),
  }),
});

/** The examples of an operation that gives these reasons: its successes, and its refusals grouped by status. */
export function postbackExamples(reasons: PostbackReason[]): ResponseExamples {
  const examples: ResponseExamples = { 200: accepted };
  for (const reason of reasons.filter((given) => given in SHOWN)) {
    const { status } = POSTBACK_REASONS[reason];
    examples[status] = { ...examples[status], [reason]: refusal(reason) };
  }
  return examples;
}
