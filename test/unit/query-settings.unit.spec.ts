import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';

describe('Query settings', () => {
  it('serve anonymous requests and trust no geo header family by default', () => {
    const config = loadConfig({});
    expect(config.anonymousQuery).toBe('on');
    expect(config.trustedGeoHeaders).toEqual([]);
  });

  it('read ANONYMOUS_QUERY=off and a list of trusted families in the given order, repeats once', () => {
    const config = loadConfig({ ANONYMOUS_QUERY: 'off', TRUSTED_GEO_HEADERS: ' vercel, cloudflare ,vercel' });
    expect(config.anonymousQuery).toBe('off');
    expect(config.trustedGeoHeaders).toEqual(['vercel', 'cloudflare']);
  });

  it.each([
    [{ ANONYMOUS_QUERY: 'yes' }, 'ANONYMOUS_QUERY must be one of on, off, got "yes"'],
    [{ TRUSTED_GEO_HEADERS: 'cloudflare,akamai' }, 'TRUSTED_GEO_HEADERS must be a comma-separated list of cloudflare, cloudfront, vercel, got "akamai"'],
    [{ TRUSTED_GEO_HEADERS: 'cloudflare,' }, 'TRUSTED_GEO_HEADERS must be a comma-separated list of cloudflare, cloudfront, vercel, got ""'],
  ])('reject %o naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
