import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { ATTRIBUTION_FIELDS, FIELD_NAMES, FIELD_RULES, IDENTITY_FIELDS, type FieldName } from '../../../../commands/postbacks/fields.js';
import { POSTBACK_RESULTS } from '../../../../commands/postbacks/receive.js';
import { POSTBACK_REASONS, type PostbackReason } from '../../../../commands/postbacks/rejections.js';
import { failureEnvelope, successEnvelope } from '../../../../platform/http/envelope-schema.js';
import { withExamples } from '../../../../platform/http/response-examples.js';
import { CANONICAL_UUID } from '../../../../platform/ids/uuid-text.js';
import { TAG } from '../../openapi/tags.js';
import { postbackExamples } from './examples.js';
import { PROTOCOL_VERSION, resultOf } from './respond.js';

/**
 * Schemas of the postback routes, from the rules the intake applies (the fields' rules, the
 * reasons table, the decisions). Requests are parsed by the route itself (its errors are
 * INVALID_PAYLOAD in the postback envelope), so the request schemas only document; the response
 * schemas also serialize, and every object is closed.
 */

const closed = { additionalProperties: false } as const;
// Plain string enums: the serializer writes them without trying branches.
const stringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const unique = <T>(values: T[]): T[] => [...new Set(values)];

/** What each field is for; what it must be comes from the intake's own rules. */
const MEANING: Record<FieldName, string> = {
  event_name: "the event the partner reports, mapped through the partner's goal mapping to a goal of the offer (no mapping: unmapped)",
  svc_click_id: 'attribution: the click id the tracked link handed to the partner',
  svc_tracking_id: "attribution: the tracked link's id",
  offer_instance_id: "attribution: the served card's offer_instance_id",
  event_id: "business identity (first choice): the partner's id of this event",
  order_id: 'business identity (second choice, with event_name): the order; one order may convert several goals',
  partner_txn_id: "business identity (last choice): the partner's transaction id",
  amount: 'the sale amount, exact; with currency or not at all; required by a goal paid as a share of the sale (cps)',
  currency: 'the currency of amount, an uppercase ISO 4217 code with a minor unit, from a fixed list (e.g. USD; fund codes such as CLF are taken; XTS, XXX and metals such as XAU are refused); with amount or not at all',
};

const RULES_TEXT =
  'At least one attribution field (svc_click_id, svc_tracking_id, offer_instance_id; several must name the same card) and at least one identity field ' +
  '(event_id, order_id, partner_txn_id). A postback\'s identity within its partner is the first present of event_id, (event_name, order_id), partner_txn_id: ' +
  'the same identity and payload again is already_recorded, with a different payload identity_conflict.';

/** Current contract: a closed JSON object of strings. */
const postbackBody = Type.Object(
  Object.fromEntries(
    FIELD_NAMES.map((name) => {
      const field = Type.String({ ...FIELD_RULES[name].schema, description: `${MEANING[name]}. Must be ${FIELD_RULES[name].expected}.` });
      return [name, name === 'event_name' ? field : Type.Optional(field)];
    }),
  ),
  {
    ...closed,
    allOf: [{ anyOf: ATTRIBUTION_FIELDS.map((name) => ({ required: [name] })) }, { anyOf: IDENTITY_FIELDS.map((name) => ({ required: [name] })) }],
    dependentRequired: { amount: ['currency'], currency: ['amount'] },
    description: `The postback (current contract): a closed object of string values; unknown fields, numbers and null are invalid_payload. ${RULES_TEXT}`,
  },
);

/** Compatibility routes: the same fields as query or form parameters, read leniently. */
const compatParameters = Type.Object(
  Object.fromEntries(
    FIELD_NAMES.map((name) => {
      const field = Type.String({
        description: `${MEANING[name]}. As in the JSON body: ${FIELD_RULES[name].expected}; an empty value or an unexpanded macro such as {click_id} counts as absent; at most once.`,
      });
      return [name, name === 'event_name' ? field : Type.Optional(field)];
    }),
  ),
  {
    additionalProperties: true,
    description: `The compatibility shape (not a current entrypoint): the JSON body's fields as parameters; other parameters are ignored (there are no aliases: a click_id is not svc_click_id). ${RULES_TEXT}`,
  },
);

const partnerParams = Type.Object(
  { partner_id: Type.String({ pattern: CANONICAL_UUID.source, description: "the partner's id, a canonical lowercase UUID; the partner is authenticated by its source address allowlist, not by a key" }) },
  closed,
);

const protocolHeaders = Type.Object({
  'SVC-Protocol-Version': Type.Optional(
    stringEnum([PROTOCOL_VERSION], `current contract: required, exactly ${PROTOCOL_VERSION} (else 400 unsupported_protocol_version); the compatibility form route is a form body sent without it`),
  ),
});

// Response headers, for the document only (respond.ts sets them).
const protocolHeader = { 'SVC-Protocol-Version': { type: 'string', enum: [PROTOCOL_VERSION], description: 'on every answer of the current contract; never on the compatibility routes' } };
const detailHeader = { 'SVC-Error-Detail': { type: 'string', description: 'a human explanation of the refusal, in visible ASCII: a backslash, a control character and any UTF-16 unit beyond ASCII written as JSON escapes them (\\\\, \\u00fc); at most 300 characters' } };
const retryHeader = { 'Retry-After': { type: 'string', enum: ['1'], description: 'seconds before a retry with the same identity' } };
const withHeaders = <T extends TSchema>(schema: T, headers: Record<string, object>): T => ({ ...schema, headers });

const accepted = successEnvelope(
  Type.Object(
    {
      result: stringEnum(POSTBACK_RESULTS, 'accepted: recorded and counted; already_recorded: this identity and payload were recorded before; unmapped: recorded, not counted (the event maps to no goal of the offer)'),
      correlation_id: Type.String({ format: 'uuid', description: "the recorded postback's correlation id (UUIDv7); for already_recorded, the original one" }),
      attribution: Type.Object(
        {
          matched_by: stringEnum(ATTRIBUTION_FIELDS, 'the attribution field the card was found by'),
          offer_id: Type.String({ format: 'uuid' }),
          offer_instance_id: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'uuid' }),
          svc_click_id: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'uuid' }),
        },
        { ...closed, description: 'the card and click the conversion is attributed to' },
      ),
      ledger_position: Type.Object(
        {
          partition: Type.Integer({ minimum: 0 }),
          offset: Type.String({ pattern: '^[0-9]+$', description: 'a decimal string: log offsets exceed the exact range of JSON numbers' }),
        },
        { ...closed, description: 'where the postback is in the postbacks log' },
      ),
    },
    closed,
  ),
  undefined,
  "the ledger's decision",
);

/** One failure status: its codes, its reasons (each with when it is given) and the diagnostics in extra. */
function failure(reasons: PostbackReason[], headers: Record<string, object>): TObject {
  const status = POSTBACK_REASONS[reasons[0]!].status;
  const envelope = failureEnvelope({
    code: stringEnum(unique(reasons.map((reason) => POSTBACK_REASONS[reason].code))),
    message: stringEnum(reasons, 'the reason'),
    extra: Type.Object(
      {
        result: stringEnum(unique(reasons.map(resultOf)), 'rejected: refused for good; deferred: logged, not decided yet; unavailable: not taken; error: unexpected, nothing logged'),
        reason: stringEnum(reasons),
        correlation_id: Type.String({ format: 'uuid', description: "this request's id (UUIDv7)" }),
        retryable: Type.Unsafe<boolean>({ type: 'boolean', enum: unique(reasons.map((reason) => POSTBACK_REASONS[reason].retryable)), description: 'whether a retry of the same postback can succeed' }),
        event_logged: Type.Boolean({ description: 'whether the postback is in the log (an identity conflict, or a decision that did not come in time)' }),
      },
      closed,
    ),
    description: reasons.map((reason) => `${reason}: ${POSTBACK_REASONS[reason].when}`).join('. '),
  });
  return withHeaders(envelope, { ...headers, ...detailHeader, ...(status >= 500 ? retryHeader : {}) });
}

/** Failure responses per status, for the reasons an operation can give. */
function failures(reasons: PostbackReason[], headers: Record<string, object> = {}): Record<number, TObject> {
  const byStatus = new Map<number, PostbackReason[]>();
  for (const reason of reasons) {
    const { status } = POSTBACK_REASONS[reason];
    byStatus.set(status, [...(byStatus.get(status) ?? []), reason]);
  }
  return Object.fromEntries([...byStatus].map(([status, group]) => [status, failure(group, headers)]));
}

/**
 * What the HTTP layer answers on these paths itself: a request whose line and headers stall
 * (408 REQUEST_TIMEOUT, README "Errors of the HTTP layer itself"; its path is not known yet).
 * Requests the parser refuses once their headers are read, or for their bytes, are answered in
 * the postback envelope (parser-refusal.ts), under 400, 408, 413 and 417.
 */
const httpLayer = {
  '4xx': failureEnvelope({ description: 'the HTTP layer\'s envelope, without postback diagnostics: 408 REQUEST_TIMEOUT when the request line and headers did not arrive within the server\'s timeout (the path is not known then); retry' }),
};

/**
 * The 408 of an operation with a body: the postback envelope when the body stalls, or the HTTP
 * layer's when the request line and headers themselves stall (its path not known yet). The
 * document's explicit 408 is read before its 4XX range, so it names both.
 */
function withHeaderStall(responses: Record<number, TObject>): Record<number, TSchema> {
  const postback = responses[408];
  if (!postback) return responses;
  const { headers, description, ...schema } = postback as TObject & { headers: Record<string, object>; description: string };
  const headerStall = failureEnvelope({
    code: Type.Literal('REQUEST_TIMEOUT'),
    extra: Type.Object({}, { additionalProperties: false }),
    description: 'the HTTP layer\'s envelope, when the request line and headers did not arrive within the server\'s timeout: no postback diagnostics, no SVC-Protocol-Version',
  });
  return {
    ...responses,
    408: { ...Type.Union([schema as TObject, headerStall]), description: `${description}. Or, when the request line and headers stall (the path is not known yet), the HTTP layer's envelope: 408 REQUEST_TIMEOUT without postback diagnostics or SVC-Protocol-Version; retry`, headers },
  };
}

const ALL_REASONS = Object.keys(POSTBACK_REASONS) as PostbackReason[];
/** Given only to other methods on the path. */
const METHOD_REASONS: PostbackReason[] = ['method_not_allowed'];
const ALLOW = { Allow: { type: 'string', enum: ['GET, POST'] } };
/** A method other than GET and POST is refused as the current contract refuses, whatever its Content-Type (channel.ts requestChannel). */
const METHOD_PROTOCOL_HEADER = { 'SVC-Protocol-Version': { type: 'string', enum: [PROTOCOL_VERSION], description: 'on every 405: a method other than GET and POST is refused as the current contract refuses' } };
/** The path's 405 with its Allow and the protocol header, declared by each operation as by the hidden one for other methods. */
const methodRefusal = () => failures(METHOD_REASONS, { ...METHOD_PROTOCOL_HEADER, ...ALLOW });
/** Checks of the current contract's request only. */
const CURRENT_REASONS: PostbackReason[] = ['unsupported_protocol_version', 'query_parameters_not_allowed'];
/** A GET has no body, so none of its refusals. */
const BODY_REASONS: PostbackReason[] = ['unsupported_media_type', 'payload_too_large', 'request_timeout'];
const without = (excluded: PostbackReason[]) => ALL_REASONS.filter((reason) => !excluded.includes(reason));

const TAGS = [TAG.postbacks];
const POST_REASONS = without(METHOD_REASONS);
const GET_REASONS = without([...METHOD_REASONS, ...CURRENT_REASONS, ...BODY_REASONS]);

export const postSchema = {
  summary: 'Report a conversion (current contract: JSON with SVC-Protocol-Version 1.0)',
  description:
    'The current contract: a closed JSON body sent as Content-Type: application/json with SVC-Protocol-Version: 1.0, no query string and no signature headers; ' +
    'every answer carries SVC-Protocol-Version: 1.0 (but a request whose line and headers stall, answered 408 by the HTTP layer before its path is known). The answer is the ledger\'s decision for the postback. ' +
    'A form body (application/x-www-form-urlencoded) sent without SVC-Protocol-Version is the compatibility form route for existing integrations, not a current entrypoint: ' +
    'its fields may also come in the query string and its answers carry no protocol header. ' +
    'Other methods on this path answer 405 method_not_allowed with Allow: GET, POST.',
  tags: TAGS,
  params: partnerParams,
  headers: protocolHeaders,
  body: {
    content: {
      'application/json': { schema: postbackBody },
      'application/x-www-form-urlencoded': { schema: compatParameters },
    },
  },
  response: withExamples(
    { 200: withHeaders(accepted, protocolHeader), ...withHeaderStall(failures(POST_REASONS, protocolHeader)), ...methodRefusal(), ...httpLayer },
    postbackExamples([...POST_REASONS, ...METHOD_REASONS]),
  ),
};

export const getSchema = {
  summary: 'Report a conversion with query parameters (compatibility route; not a current entrypoint)',
  description:
    'A compatibility route for existing integrations that can only call a URL, not a current entrypoint: new integrations use POST with a JSON body. ' +
    'The fields of the JSON body as query parameters, with the same partner checks, intake, ledger and decisions. No protocol header is required or sent.',
  deprecated: true,
  tags: TAGS,
  params: partnerParams,
  querystring: compatParameters,
  response: withExamples({ 200: accepted, ...failures(GET_REASONS), ...methodRefusal(), ...httpLayer }, postbackExamples([...GET_REASONS, ...METHOD_REASONS])),
};

/** Other methods: refused on every path of the route, so not an operation of the document. */
export const otherMethodsSchema = {
  hide: true,
  response: methodRefusal(),
};
