import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { infoResponses } from '../../services/api/routes/offers/info-schema.js';
import { instancesResponses } from '../../services/api/routes/offers/instances-schema.js';

afterEach(() => vi.restoreAllMocks());

// The serializer's schema compiler prints a strict-mode complaint (to the service's stderr, at a
// route's first answer of that shape) for a schema it reads loosely, such as `properties` without
// `type`: every status's examples go through its serializer.
describe('the offer routes\' response schemas', () => {
  it.each([
    ['POST /v1/offers/instances', instancesResponses],
    ['GET /v1/offers/info', infoResponses],
  ])('%s: every status\'s examples serialize without a strict-mode complaint', async (_route, responses) => {
    const warn = vi.spyOn(console, 'warn');
    const app = Fastify();
    const examples = Object.entries(responses as Record<string, { 'x-examples'?: Record<string, { value: unknown }> }>).flatMap(([status, schema]) =>
      Object.values(schema['x-examples'] ?? {}).map((example) => ({ status, value: example.value })),
    );
    const serialized: string[] = [];
    app.get('/', { schema: { response: responses } }, async (_request, reply) => {
      for (const { status, value } of examples) serialized.push(reply.getSerializationFunction(status)!(value as never));
      return reply.code(204).send();
    });
    expect((await app.inject({ url: '/' })).statusCode).toBe(204);
    await app.close();
    expect(new Set(examples.map((example) => example.status))).toContain('200');
    expect(serialized.map((text) => JSON.parse(text))).toEqual(examples.map((example) => example.value));
    expect(warn.mock.calls).toEqual([]);
  });
});
