import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DISPLAY_CHARACTERS,
  KEY_PATTERN,
  RANDOM_KEY_LENGTH,
  displayPrefix,
  hashApiKey,
  kindOfKey,
  newApiKey,
  randomBase62,
  sandboxKey,
} from '../../projections/accounts/api-keys.js';

const secret = fc.string({ minLength: 32, maxLength: 80 });

describe('API key formats', () => {
  it('live and test keys: kind prefix, then 40 base62 characters', () => {
    fc.assert(
      fc.property(fc.constantFrom('live' as const, 'test' as const), fc.uint8Array({ minLength: 1, maxLength: 64 }), (kind, bytes) => {
        // Any byte source, even a poor one, gives a well-formed key.
        const key = newApiKey(kind, (size) => Buffer.from(Array.from({ length: size }, (_, i) => bytes[i % bytes.length]! % 248)));
        expect(key).toMatch(new RegExp(`^svc_${kind}_[0-9A-Za-z]{${RANDOM_KEY_LENGTH}}$`));
        expect(kindOfKey(key)).toBe(kind);
      }),
    );
  });

  it('random base62 skips bytes that would bias it', () => {
    const bytes = [255, 250, 248, 0, 61, 62, 247];
    let served = 0;
    const out = randomBase62(4, (size) => Buffer.from(Array.from({ length: size }, () => bytes[served++ % bytes.length]!)));
    expect(out).toBe('0z0z'); // 255, 250, 248 dropped; 0 → '0', 61 → 'z', 62 → '0', 247 (= 3 × 62 + 61) → 'z'
  });

  it('two new keys differ', () => {
    const keys = new Set(Array.from({ length: 200 }, () => newApiKey('live')));
    expect(keys.size).toBe(200);
  });

  it('the display prefix is the kind prefix and a few characters, a true prefix of the key', () => {
    const key = newApiKey('live');
    expect(displayPrefix(key)).toBe(key.slice(0, 'svc_live_'.length + DISPLAY_CHARACTERS));
    expect(displayPrefix(newApiKey('test'))).toMatch(/^svc_test_[0-9A-Za-z]{6}$/);
    expect(() => displayPrefix('sk_live_abc')).toThrow();
  });

  it('the sandbox key is fixed per secret and generation, public-format, and differs per generation', () => {
    fc.assert(
      fc.property(secret, fc.nat({ max: 1000 }), (s, generation) => {
        const key = sandboxKey(s, generation);
        expect(key).toBe(sandboxKey(s, generation));
        expect(key).toMatch(/^svc_sandbox_[0-9A-Za-z]{43}$/);
        expect(key).toMatch(KEY_PATTERN);
        expect(sandboxKey(s, generation + 1)).not.toBe(key);
      }),
    );
  });

  it('recognizes only the three kinds with a long enough random part', () => {
    expect(kindOfKey(sandboxKey('x'.repeat(32), 0))).toBe('sandbox');
    expect(kindOfKey('svc_live_short')).toBeUndefined();
    expect(kindOfKey(`svc_prod_${'a'.repeat(40)}`)).toBeUndefined();
    expect(kindOfKey(`svc_live_${'a'.repeat(39)}!`)).toBeUndefined();
  });
});

describe('API key hashing', () => {
  it('is 64 lowercase hex, fixed for a key and secret, and changes with either', () => {
    fc.assert(
      fc.property(secret, secret, fc.string({ minLength: 1 }), (s1, s2, key) => {
        const hash = hashApiKey(s1, key);
        expect(hash).toMatch(/^[0-9a-f]{64}$/);
        expect(hashApiKey(s1, key)).toBe(hash);
        if (s1 !== s2) expect(hashApiKey(s2, key)).not.toBe(hash);
        expect(hashApiKey(s1, `${key}x`)).not.toBe(hash);
      }),
    );
  });
});
