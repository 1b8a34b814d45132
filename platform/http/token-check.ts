import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether a presented token is the configured one (ADMIN_TOKEN, METRICS_TOKEN); digests are compared, so the time taken says nothing of its length. */
export function tokenCheck(token: string): (presented: string) => boolean {
  const expected = digest(token);
  return (presented) => presented !== '' && timingSafeEqual(digest(presented), expected);
}

/** The token of an `Authorization: Bearer …` header, or ''. */
export function bearerOf(request: FastifyRequest): string {
  // The scheme in any case (RFC 7235); the token as configured (it may hold spaces).
  return /^bearer +(.+)$/i.exec((request.headers.authorization ?? '').trim())?.[1] ?? '';
}
