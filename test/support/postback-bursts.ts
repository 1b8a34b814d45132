import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/**
 * Sends 50 copies of one postback at once and checks the answers: exactly one accepted, 49
 * already_recorded, all with its correlation id. Answers the responses.
 */
export async function expectOneOf50Accepted(post: (body: unknown) => Promise<LightMyRequestResponse>, body: unknown): Promise<LightMyRequestResponse[]> {
  const responses = await Promise.all(Array.from({ length: 50 }, () => post(body)));
  const results = responses.map((response) => response.json().data.result);
  expect(results.filter((result) => result === 'accepted')).toHaveLength(1);
  expect(results.filter((result) => result === 'already_recorded')).toHaveLength(49);
  expect(new Set(responses.map((response) => response.json().data.correlation_id)).size).toBe(1);
  return responses;
}
