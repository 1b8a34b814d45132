import { describe, expect, it } from 'vitest';
import { cityText, readTrustedGeo } from '../../services/api/routes/offers/query-geo.js';

const cloudflare = { 'cf-ipcountry': 'au', 'cf-region-code': 'nsw', 'cf-ipcity': 'Sydney' };
const vercel = { 'x-vercel-ip-country': 'US', 'x-vercel-ip-country-region': 'CA', 'x-vercel-ip-city': 'San%20Jos%C3%A9' };

describe('trusted provider headers', () => {
  it('reads nothing when no family is trusted, whatever is sent', () => {
    expect(readTrustedGeo({ ...cloudflare, ...vercel }, [])).toBeUndefined();
  });

  it('reads only trusted families, codes in upper case, the city decoded', () => {
    expect(readTrustedGeo({ ...cloudflare, ...vercel }, ['cloudflare'])).toEqual({ family: 'cloudflare', country: 'AU', region: 'NSW', city: 'Sydney' });
    expect(readTrustedGeo({ ...cloudflare, ...vercel }, ['vercel'])).toEqual({ family: 'vercel', country: 'US', region: 'CA', city: 'San José' });
    expect(readTrustedGeo(cloudflare, ['vercel', 'cloudfront'])).toBeUndefined();
  });

  it('takes the first trusted family whose country header is a country code', () => {
    expect(readTrustedGeo({ ...cloudflare, ...vercel }, ['vercel', 'cloudflare'])?.family).toBe('vercel');
    expect(readTrustedGeo({ ...cloudflare, 'x-vercel-ip-country': 'unknown' }, ['vercel', 'cloudflare'])?.family).toBe('cloudflare');
    // Cloudflare's XX (no country known) and T1 (Tor), and the other codes ISO 3166 leaves to users, name no country.
    for (const code of ['XX', 'xx', 'T1', 'ZZ', 'AA', 'QM', 'QZ', 'XA']) {
      expect(readTrustedGeo({ ...cloudflare, 'cf-ipcountry': code, ...vercel }, ['cloudflare', 'vercel'])?.family, code).toBe('vercel');
    }
    for (const code of ['XK', 'QA', 'US']) expect(readTrustedGeo({ ...cloudflare, 'cf-ipcountry': code, ...vercel }, ['cloudflare', 'vercel'])?.country).toBe(code);
    expect(readTrustedGeo({ 'cloudfront-viewer-country': 'FR' }, ['cloudfront'])).toEqual({ family: 'cloudfront', country: 'FR' });
  });

  // As Node's headersDistinct gives a header sent more than once.
  it('reads copies of a header that agree as one value, and copies that differ as none', () => {
    expect(readTrustedGeo({ 'x-vercel-ip-country': ['US', 'us '], 'x-vercel-ip-city': ['Kabul', 'Kabul'], 'cloudfront-viewer-country': ['DE'] }, ['vercel', 'cloudfront'])).toEqual({
      family: 'vercel', country: 'US', city: 'Kabul',
    });
    // Two countries from the family trusted first: unknown, and the family trusted less is not asked.
    expect(readTrustedGeo({ 'cf-ipcountry': ['US', 'AF'], 'cloudfront-viewer-country': ['DE'] }, ['cloudflare', 'cloudfront'])).toBeUndefined();
    // A region or city given twice, differently: the caller stays at the level above.
    expect(readTrustedGeo({ 'cf-ipcountry': ['US'], 'cf-region-code': ['CA', 'NY'], 'cf-ipcity': ['Albany', 'Fresno'] }, ['cloudflare'])).toEqual({ family: 'cloudflare', country: 'US' });
  });

  it('decodes percent-encoding and raw UTF-8 bytes read as Latin-1, and leaves other text alone', () => {
    expect(cityText('S%C3%A3o%20Paulo')).toBe('São Paulo');
    expect(cityText(Buffer.from('Zürich', 'utf8').toString('latin1'))).toBe('Zürich');
    expect(cityText('100%')).toBe('100%');
    expect(cityText('%E0%A4%A')).toBe('%E0%A4%A');
    expect(cityText(' Köln ')).toBe('Köln');
  });
});
