import { describe, expect, it } from 'vitest';
import { ADVISORY_LOCK_KEYS } from '../../platform/db/advisory-locks.js';

describe('advisory lock keys', () => {
  it('gives every use a key of its own (two uses sharing one wait on each other)', () => {
    const keys = Object.values(ADVISORY_LOCK_KEYS);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
