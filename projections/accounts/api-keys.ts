import { createHmac, randomBytes } from 'node:crypto';
import type { ApiKeyKind } from '../../schemas/generated/events.js';

/**
 * API key formats and hashing. A clear key exists only in the result of the command that issues
 * it; the log and the read model hold HMAC-SHA256(KEY_HASH_SECRET, key) and a display prefix, so
 * a leaked table or topic reveals no usable key.
 */
const KEY_PREFIX: Record<ApiKeyKind, string> = { live: 'svc_live_', test: 'svc_test_', sandbox: 'svc_sandbox_' };

/** Random part of live and test keys: 40 base62 characters, about 238 bits. */
export const RANDOM_KEY_LENGTH = 40;
/** Characters of the random part kept for display after the kind prefix. */
export const DISPLAY_CHARACTERS = 6;
/** Longer presented keys are refused before hashing (no key we issue comes close). */
export const MAX_PRESENTED_KEY_LENGTH = 128;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SANDBOX_LENGTH = 43; // ceil(256 bits / log2(62))

export const KEY_PATTERN = /^svc_(live|test|sandbox)_[0-9A-Za-z]{32,}$/;

/** Unbiased random base62: bytes of 248 and above are dropped (248 = 4 × 62). */
export function randomBase62(length: number, random: (size: number) => Buffer = randomBytes): string {
  let out = '';
  while (out.length < length) {
    for (const byte of random(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A new live or test key; `random` is injectable so the seed can be deterministic. */
export function newApiKey(kind: 'live' | 'test', random?: (size: number) => Buffer): string {
  return KEY_PREFIX[kind] + randomBase62(RANDOM_KEY_LENGTH, random);
}

/** Lowercase hex HMAC-SHA256 of the key under the server-side secret. */
export function hashApiKey(secret: string, key: string): string {
  return createHmac('sha256', secret).update(key, 'utf8').digest('hex');
}

export function displayPrefix(key: string): string {
  const kind = /^svc_(live|test|sandbox)_/.exec(key);
  if (!kind) throw new Error('not an API key');
  return key.slice(0, kind[0].length + DISPLAY_CHARACTERS);
}

/**
 * The shared public sandbox key of a deployment, generation `generation` (0 for the first; a
 * new generation after a revocation). Derived from the secret so the issuing command can show
 * it again on every call while only its hash is stored; knowing it reveals nothing of the secret.
 */
export function sandboxKey(secret: string, generation: number): string {
  let n = BigInt(`0x${createHmac('sha256', secret).update(`offer-ledger sandbox key ${generation}`).digest('hex')}`);
  let out = '';
  for (let i = 0; i < SANDBOX_LENGTH; i += 1) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return KEY_PREFIX.sandbox + out;
}

export function kindOfKey(key: string): ApiKeyKind | undefined {
  return KEY_PATTERN.exec(key)?.[1] as ApiKeyKind | undefined;
}
