import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { targetingChain } from '../../reference/locations/targeting-chain.js';

describe('targetingChain', () => {
  it('is the FULL chain when it is complete (the registry adds nothing new)', () => {
    expect(targetingChain(['9061180', '21137', '2840'], ['9061180', '21137', '2840'])).toEqual(['9061180', '21137', '2840']);
    expect(targetingChain(['1009999', '9000001', '21137', '2840'], ['1009999', '21137', '2840'])).toEqual(['1009999', '9000001', '21137', '2840']);
  });

  it('goes on with the registry where the FULL chain stops at a missing parent', () => {
    expect(targetingChain(['1000002'], ['1000002', '2004'])).toEqual(['1000002', '2004']);
    expect(targetingChain([], ['21137', '2840'])).toEqual(['21137', '2840']);
  });

  it('keeps the FULL chain first and in order, holds every id of both once', () => {
    const ids = fc.uniqueArray(fc.stringMatching(/^[1-9][0-9]{0,6}$/), { maxLength: 6 });
    fc.assert(fc.property(ids, ids, (full, registry) => {
      const chain = targetingChain(full, registry);
      expect(chain.slice(0, full.length)).toEqual(full);
      expect(new Set(chain)).toEqual(new Set([...full, ...registry]));
      expect(chain.length).toBe(new Set(chain).size);
    }));
  });
});
