import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * FULL search cursors: opaque to clients, signed with the release's secret, bound to the search
 * constraints. Format: base64url(JSON position) "." base64url(first 16 bytes of HMAC-SHA256).
 * The position is a keyset: the last row handed out (tier, type bucket, folded name, id).
 */
export interface CursorPosition {
  tier: number;
  bucket: number;
  name: string;
  id: string;
}

interface CursorPayload extends CursorPosition {
  /** Release the cursor was issued for. */
  release: number;
  /** Hash of the constraints it was issued for. */
  constraints: string;
}

export type CursorProblem = 'malformed' | 'other-release' | 'other-constraints';

export class CursorError extends Error {
  constructor(readonly problem: CursorProblem) {
    super(problem);
  }
}

/** Canonical hash of the constraints a cursor is bound to. */
export function constraintsKey(constraints: Record<string, unknown>): string {
  const canonical = JSON.stringify(Object.keys(constraints).sort().map((key) => [key, constraints[key] ?? null]));
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest().subarray(0, 16);

export function encodeCursor(secret: string, release: number, constraints: string, position: CursorPosition): string {
  const payload: CursorPayload = { release, constraints, ...position };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(secret, body).toString('base64url')}`;
}

/** Throws CursorError when the cursor was not issued by this release or was issued for other constraints. */
export function decodeCursor(secret: string, release: number, constraints: string, cursor: string): CursorPosition {
  const [body, signature, extra] = cursor.split('.');
  if (!body || !signature || extra !== undefined) throw new CursorError('malformed');
  const given = Buffer.from(signature, 'base64url');
  const expected = sign(secret, body);
  let payload: Partial<CursorPayload>;
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    // A cursor of an earlier release fails the signature too; tell the two apart when we can.
    payload = tryParse(body);
    if (typeof payload.release === 'number' && payload.release !== release) throw new CursorError('other-release');
    throw new CursorError('malformed');
  }
  payload = tryParse(body);
  const { tier, bucket, name, id } = payload;
  if (typeof tier !== 'number' || typeof bucket !== 'number' || typeof name !== 'string' || typeof id !== 'string' || !/^[0-9]+$/.test(id)) {
    throw new CursorError('malformed');
  }
  if (payload.release !== release) throw new CursorError('other-release');
  if (payload.constraints !== constraints) throw new CursorError('other-constraints');
  return { tier, bucket, name, id };
}

function tryParse(body: string): Partial<CursorPayload> {
  try {
    const value: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Partial<CursorPayload>) : {};
  } catch {
    return {};
  }
}
