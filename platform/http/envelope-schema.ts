import { Type, type TObject, type TSchema } from '@sinclair/typebox';

/**
 * TypeBox schemas of the reference's envelope, for routes' `schema.response` (which both
 * serializes the answer and documents it in /openapi.json).
 */

/**
 * A failure: data is always {}; extra carries the route's diagnostics (field, retry_after_seconds,
 * backends…). A route that states its codes, messages or extra exactly passes its own schemas.
 */
export const failureEnvelope = ({
  code = Type.String({ description: 'machine-readable error code, e.g. BAD_REQUEST' }),
  message = Type.String(),
  extra = Type.Object({}, { additionalProperties: true }),
  description = 'error envelope',
}: { code?: TSchema; message?: TSchema; extra?: TObject; description?: string } = {}) =>
  Type.Object({ code, message, data: Type.Object({}, { additionalProperties: false }), extra }, { additionalProperties: false, description });

/** A success whose `data` is the given schema; the description is the response's in the document. */
export const successEnvelope = <D extends TSchema>(data: D, extra: TObject = Type.Object({}, { additionalProperties: false }), description = 'success') =>
  Type.Object(
    { code: Type.Literal('SUCCESS'), message: Type.Literal(''), data, extra },
    { additionalProperties: false, description },
  );

/**
 * Errors of the HTTP layer on any route (README, "Errors of the HTTP layer itself"): whatever a
 * route's own statuses do not name (408, 413, 431, 500…) is one of these ranges.
 */
const errorResponses = {
  '4xx': failureEnvelope({ description: 'error envelope: another refusal of the HTTP layer (malformed request, timeout, body or headers too large)' }),
  '5xx': failureEnvelope({ description: 'error envelope: INTERNAL_ERROR, a failure of ours; retry later' }),
};

/** An error status's codes, each with when it is given (a route's rows of the reference's Errors tables). */
export type ErrorCodes = Record<string, string>;

/** Given on every route to a request that arrives while the instance shuts down (request-guards.ts). */
const SHUTTING_DOWN: ErrorCodes = { SHUTTING_DOWN: 'the request arrived while this instance shuts down; retry (the connection closes)' };

const codeEnum = (codes: ErrorCodes) => Type.Unsafe<string>({ type: 'string', enum: Object.keys(codes) });
const described = (codes: ErrorCodes) => Object.entries(codes).map(([code, when]) => `${code}: ${when}`).join('. ');

/**
 * The 405 a path gives to a method it does not have (answered by the app's not-found handler,
 * never by the operation), for the table of errorStatuses.
 */
export const methodNotAllowedStatus = (allow: string, when = `a method other than ${allow} on this path`): { 405: ErrorCodes } => ({ 405: { 405: `${when} (Allow: ${allow})` } });

/** Response headers of some error statuses, for the document (errors.ts sets them). */
const ERROR_HEADERS: Record<number, Record<string, object>> = {
  405: { Allow: { type: 'string', description: 'the methods the path has' } },
  429: { 'Retry-After': { type: 'string', pattern: '^[0-9]+$', description: 'seconds, the same as extra.retry_after_seconds' } },
};

/** 429 RATE_LIMITED always says when to retry. */
const rateLimitedExtra = Type.Object(
  { retry_after_seconds: Type.Integer({ minimum: 1, description: 'seconds before a retry can succeed' }) },
  { additionalProperties: false },
);

/**
 * One response per error status a route answers with, each the envelope with its codes listed
 * (and described); 503 also names SHUTTING_DOWN, which every route can give. `extra` is the
 * failures' metadata bag (an empty object on the offer routes); 429's is its retry delay. The
 * ranges of errorResponses stay for the HTTP layer's other refusals, in the same `extra`.
 */
export function errorStatuses<S extends number>(table: Record<S, ErrorCodes>, { extra }: { extra?: TObject } = {}): Record<S | keyof typeof errorResponses, TObject> {
  const responses: Record<string, TObject> = {};
  for (const [status, routeCodes] of Object.entries<ErrorCodes>(table)) {
    const codes = Number(status) === 503 ? { ...routeCodes, ...SHUTTING_DOWN } : routeCodes;
    const envelope = failureEnvelope({
      code: codeEnum(codes),
      extra: Number(status) === 429 ? rateLimitedExtra : extra,
      description: described(codes),
    });
    const headers = ERROR_HEADERS[Number(status)];
    responses[status] = headers ? { ...envelope, headers } : envelope;
  }
  const ranges = Object.fromEntries(Object.entries(errorResponses).map(([range, envelope]) => [range, extra ? failureEnvelope({ extra, description: envelope.description! }) : envelope]));
  return { ...responses, ...ranges } as Record<S | keyof typeof errorResponses, TObject>;
}

/**
 * Route option for routes that validate by hand (to give the reference's error codes and
 * messages): their request schemas are declared for the document only, and Fastify passes the
 * input through unchanged.
 */
export const documentOnlyValidation = { validatorCompiler: () => (value: unknown) => ({ value }) };
