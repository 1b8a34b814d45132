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

export const errorEnvelope = failureEnvelope();

/** A success whose `data` is the given schema; the description is the response's in the document. */
export const successEnvelope = <D extends TSchema>(data: D, extra: TObject = Type.Object({}, { additionalProperties: false }), description = 'success') =>
  Type.Object(
    { code: Type.Literal('SUCCESS'), message: Type.Literal(''), data, extra },
    { additionalProperties: false, description },
  );

/** Error statuses a route answers in the envelope (keys as Fastify's response schema accepts them). */
export const errorResponses = { '4xx': errorEnvelope, '5xx': errorEnvelope };

/**
 * Route option for routes that validate by hand (to give the reference's error codes and
 * messages): their request schemas are declared for the document only, and Fastify passes the
 * input through unchanged.
 */
export const documentOnlyValidation = { validatorCompiler: () => (value: unknown) => ({ value }) };
