import { failure } from './envelope.js';
import { methodNotAllowed } from './errors.js';

/**
 * Example answers of a route, shown in /openapi.json and /docs beside the schema of their status.
 * They sit on the response schema as `x-examples`, which @fastify/swagger moves to the response's
 * media type (`content['application/json'].examples`, named, with a summary each); the serializer
 * ignores the keyword. A test validates every example against its status's schema.
 */
export interface ResponseExample {
  summary: string;
  value: unknown;
}

/** Per status, the examples by name (the names /docs lists). */
export type ResponseExamples<S extends string | number = string | number> = Partial<Record<S, Record<string, ResponseExample>>>;

const EXAMPLES = 'x-examples';

/** The route's responses, each status carrying its examples; the schemas themselves are unchanged. */
export function withExamples<R extends Record<string | number, object>>(responses: R, examples: ResponseExamples<Extract<keyof R, string | number>>): R {
  const statuses = Object.keys(examples).filter((status) => !(status in responses));
  if (statuses.length > 0) throw new Error(`examples for statuses the route does not declare: ${statuses.join(', ')}`);
  return Object.fromEntries(
    Object.entries(responses).map(([status, schema]) => {
      const named = examples[status as Extract<keyof R, string | number>];
      return [status, named ? { ...schema, [EXAMPLES]: named } : schema];
    }),
  ) as R;
}

/** The example of methodNotAllowedStatus's 405: `method` sent where only `allow` is taken. */
export const methodNotAllowedExample = (allow: string, method: string): Record<string, ResponseExample> => ({
  405: { summary: `${method} on the path`, value: failure('405', methodNotAllowed(allow).message) },
});
