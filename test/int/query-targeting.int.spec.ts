import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../platform/config/config.js';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { buildApp } from '../../services/api/app.js';
import type { GeoFamily } from '../../services/api/routes/offers/query-geo.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { listeningPartnerEndpoint } from '../support/partner-endpoint.js';
import { projectedServes } from '../support/serves.js';
import { details, servingAdmin } from '../support/serving-fixtures.js';

// Targeting, ranking and content of Query cards on the real stack and on the embedded default,
// with the real geo excerpt:
// Australia 2036 > New South Wales 20035 > Sydney 1000286 and Broken Hill 1000170, Victoria 20040;
// United States 2840 > California 21137.
describe.each([['kafka'], ['embedded']] as const)('on the %s backend', (eventLog) => {
  let t: TestRuntime & { app: FastifyInstance };
  let projectors: RunningProjectors;
  let admin: ReturnType<typeof servingAdmin>;
  let partnerId: string;
  let liveKey: string;
  /** The key's application's placement: a Query without one is served to the default application. */
  let placementId: string;
  const apps: FastifyInstance[] = [];
  const geo = {} as Record<'any' | 'au' | 'auNotNsw' | 'sydney' | 'us' | 'california' | 'notUs', string>;

  interface Card {
    offer_id: string;
    offer_instance_id: string;
    offer_info: { status: string; title: string; category: { id: string } };
    content_language?: string;
    action?: unknown;
  }

  async function cards(app: FastifyInstance, body: Record<string, unknown>, headers: Record<string, string | string[]> = {}): Promise<Card[]> {
    const response = await app.inject({
      method: 'POST', url: '/v1/offers/query',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${liveKey}`, ...headers },
      payload: JSON.stringify({ placement_id: placementId, ...body }),
    });
    expect(response.statusCode, response.body).toBe(200);
    // Targeting is evaluated, never shown: no rule, and no location the caller was resolved to.
    expect(response.body).not.toMatch(/"(targeting|geo|include|exclude|location_id|location_ids)":/);
    return (response.json() as { data: { cards: Card[] } }).data.cards;
  }

  /** The API of the same process with other settings. */
  async function appWith(config: Partial<Config>): Promise<FastifyInstance> {
    const app = await buildApp({ runtime: { ...t.runtime, config: { ...t.runtime.config, ...config } } });
    apps.push(app);
    return app;
  }

  const FAMILIES: Record<GeoFamily, (country: string, region?: string, city?: string) => Record<string, string>> = {
    cloudflare: (country, region, city) => ({ 'cf-ipcountry': country, ...(region && { 'cf-region-code': region }), ...(city && { 'cf-ipcity': city }) }),
    cloudfront: (country, region, city) => ({
      'cloudfront-viewer-country': country, ...(region && { 'cloudfront-viewer-country-region': region }), ...(city && { 'cloudfront-viewer-city': city }),
    }),
    // Vercel percent-encodes the city.
    vercel: (country, region, city) => ({
      'x-vercel-ip-country': country, ...(region && { 'x-vercel-ip-country-region': region }), ...(city && { 'x-vercel-ip-city': encodeURIComponent(city) }),
    }),
  };

  /** The geo offers a Query with these headers gets, and the location its serves recorded. */
  async function servedGeo(app: FastifyInstance, headers: Record<string, string | string[]>) {
    const got = (await cards(app, { limit: 10, context: { categories: ['geo'] } }, headers)).filter((card) => card.offer_info.category.id === 'geo');
    const [row] = await projectedServes(t.runtime, [got[0]!.offer_instance_id]);
    const names = Object.entries(geo).filter(([, offerId]) => got.some((card) => card.offer_id === offerId)).map(([name]) => name);
    return { names: names.sort(), location: row!.location_id };
  }

  const include = (...ids: string[]) => ids.map((location_id) => ({ location_id }));
  const afghanistan: { in?: string; notIn?: string } = {};

  beforeAll(async () => {
    t = await createTestApp({ eventLog });
    await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
    projectors = await startProjectors(t.runtime);
    admin = servingAdmin(t.runtime);
    const developer = await admin.developer();
    const application = await admin.application(developer);
    liveKey = (await admin.key(application)).key;
    placementId = await admin.placement(application);
    partnerId = await admin.partner();
    const geoOffer = (targeting?: unknown) => admin.offer({ partner_id: partnerId, details: details('geo'), destination_url: 'https://geo.example/', ...(targeting ? { targeting } : {}) });
    geo.any = await geoOffer();
    geo.au = await geoOffer([{ geo: { include: include('2036'), exclude: [] } }]);
    geo.auNotNsw = await geoOffer([{ geo: { include: include('2036'), exclude: include('20035') } }]);
    geo.sydney = await geoOffer([{ geo: { include: include('1000286'), exclude: [] } }]);
    geo.us = await geoOffer([{ geo: { include: include('2840'), exclude: [] } }]);
    geo.california = await geoOffer([{ geo: { include: include('21137'), exclude: [] } }]);
    geo.notUs = await geoOffer([{ geo: { include: [], exclude: include('2840') } }]);
    // In a category of their own, so the other tests' lists stay as they are.
    const afOffer = (targeting: unknown) => admin.offer({ partner_id: partnerId, details: details('af'), destination_url: 'https://af.example/', targeting });
    afghanistan.in = await afOffer([{ geo: { include: include('2004'), exclude: [] } }]);
    afghanistan.notIn = await afOffer([{ geo: { include: [], exclude: include('2004') } }]);
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await projectors?.stop();
    await t?.close();
  });

  describe('targeting from trusted provider headers', () => {
    describe.each(['cloudflare', 'cloudfront', 'vercel'] as const)('%s', (family) => {
      let app: FastifyInstance;
      beforeAll(async () => {
        app = await appWith({ trustedGeoHeaders: [family] });
      });
      const headers = FAMILIES[family];

      it('a city under its region: the city and every ancestor match; a rule excluding its region wins', async () => {
        expect(await servedGeo(app, headers('AU', 'NSW', 'Sydney'))).toEqual({ names: ['any', 'au', 'notUs', 'sydney'], location: '1000286' });
        expect(await servedGeo(app, headers('au', 'nsw', 'Broken Hill'))).toEqual({ names: ['any', 'au', 'notUs'], location: '1000170' });
      });

      it('a region when the city is unknown; a country without region; US-CA through its provider code', async () => {
        expect(await servedGeo(app, headers('AU', 'VIC', 'Atlantis'))).toEqual({ names: ['any', 'au', 'auNotNsw', 'notUs'], location: '20040' });
        expect(await servedGeo(app, headers('AU'))).toEqual({ names: ['any', 'au', 'auNotNsw', 'notUs'], location: '2036' });
        expect(await servedGeo(app, headers('US', 'CA'))).toEqual({ names: ['any', 'california', 'us'], location: '21137' });
        expect(await servedGeo(app, headers('US', 'ZZ'))).toEqual({ names: ['any', 'us'], location: '2840' });
      });

      it('a city name two cities of the scope share names neither: the caller is placed in the scope (Heraklion, Greece)', async () => {
        expect(await servedGeo(app, headers('GR', undefined, 'Heraklion'))).toEqual({ names: ['any', 'notUs'], location: '2300' });
      });

      it('a city whose FULL parent is missing from the release is still in the country its header names (Kabul: rules on Afghanistan apply)', async () => {
        const servedAf = async (sent: Record<string, string>) =>
          (await cards(app, { limit: 10, context: { categories: ['af'] } }, sent)).filter((card) => card.offer_info.category.id === 'af').map((card) => card.offer_id);
        for (const sent of [headers('AF'), headers('AF', undefined, 'Kabul')]) expect(await servedAf(sent)).toEqual([afghanistan.in]);
        expect(await servedAf(headers('AU'))).toEqual([afghanistan.notIn]);
      });

      it('an unknown location is served only offers without targeting', async () => {
        expect(await servedGeo(app, headers('XX'))).toEqual({ names: ['any'], location: null });
        expect(await servedGeo(app, {})).toEqual({ names: ['any'], location: null });
      });
    });

    it('ignores the headers of families that are not trusted', async () => {
      const vercelOnly = await appWith({ trustedGeoHeaders: ['vercel'] });
      const untrusted = { ...FAMILIES.cloudflare('AU', 'NSW', 'Sydney'), ...FAMILIES.cloudfront('US', 'CA') };
      expect(await servedGeo(vercelOnly, untrusted)).toEqual({ names: ['any'], location: null });
      // The default trusts none.
      expect(await servedGeo(t.app, { ...untrusted, ...FAMILIES.vercel('AU', 'NSW', 'Sydney') })).toEqual({ names: ['any'], location: null });
    });

    it('takes the first trusted family that sent a country, in TRUSTED_GEO_HEADERS order', async () => {
      const both = await appWith({ trustedGeoHeaders: ['vercel', 'cloudflare'] });
      expect(await servedGeo(both, { ...FAMILIES.cloudflare('AU', 'NSW', 'Sydney'), ...FAMILIES.vercel('US', 'CA') })).toMatchObject({ location: '21137' });
      expect(await servedGeo(both, FAMILIES.cloudflare('AU', 'NSW', 'Sydney'))).toMatchObject({ location: '1000286' });
    });

    // Node joins a header's copies into "US, US", which is no country code: the family was passed over.
    it('reads copies of a header that agree as one, and copies that differ as no place (the family trusted less is not asked)', async () => {
      const both = await appWith({ trustedGeoHeaders: ['vercel', 'cloudfront'] });
      const germany = FAMILIES.cloudfront('DE');
      expect(await servedGeo(both, { 'x-vercel-ip-country': ['US', 'US'], ...germany })).toMatchObject({ names: ['any', 'us'], location: '2840' });
      expect(await servedGeo(both, { 'x-vercel-ip-country': ['US', 'AU'], ...germany })).toEqual({ names: ['any'], location: null });
      expect(await servedGeo(both, { 'x-vercel-ip-country': 'AU', 'x-vercel-ip-country-region': ['NSW', 'NSW'], 'x-vercel-ip-city': ['Sydney', 'Sydney'] })).toMatchObject({ location: '1000286' });
      expect(await servedGeo(both, { 'x-vercel-ip-country': 'AU', 'x-vercel-ip-country-region': 'NSW', 'x-vercel-ip-city': ['Sydney', 'Broken%20Hill'] })).toMatchObject({ location: '20035' });
    });
  });

  describe('ranking and content', () => {
    it('category match first, then the highest CPA, then CPS, then offer id: the same order every time', async () => {
      const offer = (category: string, pricing: { amount?: string; rate?: string }) =>
        admin.offer({ partner_id: partnerId, details: details(category, pricing), destination_url: 'https://rank.example/' });
      const low = await offer('rank', { amount: '5.00' });
      const [highA, highB] = [await offer('rank', { amount: '12.50' }), await offer('rank', { amount: '12.5' })].sort() as [string, string];
      const cpsHigh = await offer('rank', { rate: '30' });
      const cpsLow = await offer('rank', { rate: '7.5' });
      const cheapPreferred = await offer('rank-b', { amount: '0.01' });

      const ranked = [highA, highB, low, cpsHigh, cpsLow];
      const order = async (categories: string[], ids: string[]) =>
        (await cards(t.app, { limit: 10, context: { categories } })).map((card) => card.offer_id).filter((id) => ids.includes(id));
      expect(await order(['rank'], ranked)).toEqual(ranked);
      expect(await order(['rank'], ranked)).toEqual(ranked);
      // A preferred category ranks above any payout; without preference any CPA offer precedes CPS ones.
      expect(await order(['rank-b'], [...ranked, cheapPreferred])).toEqual([cheapPreferred, ...ranked]);
      expect(await order([], [...ranked, cheapPreferred])).toEqual([highA, highB, low, cheapPreferred, cpsHigh, cpsLow]);

      // Equal CPA amounts: the CPS rate decides before the offer id (README: "then the highest CPS rate").
      const cpaOnly = await offer('rank-mixed', { amount: '3.00' });
      const withCps = await admin.offer({
        partner_id: partnerId,
        details: { ...details('rank-mixed', { amount: '3.0' }), goals: [...details('rank-mixed', { amount: '3.0' }).goals, { event: 'purchase', pricing: { model: 'cps', rate: '90' } }] },
        destination_url: 'https://rank.example/',
      });
      expect(cpaOnly < withCps).toBe(true);
      expect(await order(['rank-mixed'], [cpaOnly, withCps])).toEqual([withCps, cpaOnly]);
    });

    it('a remote offer is served from its preferred active snapshot, with no call to its partner; one without an active snapshot is not served', async () => {
      // The partner's offer endpoint, listening: it must hear nothing while the offer is served.
      const { endpoint, calls: partnerCalls } = await listeningPartnerEndpoint();
      const remote = await admin.offer({ partner_id: partnerId, kind: 'remote', destination_url: 'https://remote.example/', internal: { remote_endpoint: endpoint } });
      await admin.run('offer:publish-snapshot', { offer_id: remote, language: 'de', content: details('remote', { amount: '3.00' }, 'Angebot') });
      await admin.run('offer:publish-snapshot', { offer_id: remote, language: 'en-GB', content: details('remote', { amount: '3.00' }, 'Offer') });
      const silent = await admin.offer({ partner_id: partnerId, kind: 'remote', destination_url: 'https://remote.example/' });
      await admin.run('offer:publish-snapshot', { offer_id: silent, language: 'en', active: false, content: details('remote', { amount: '50.00' }, 'Gone') });

      const got = (await cards(t.app, { limit: 10, context: { categories: ['remote'] } })).filter((card) => card.offer_info.category.id === 'remote');
      expect(got.map((card) => card.offer_id)).toEqual([remote]);
      expect(got[0]).toMatchObject({ offer_info: { status: 'active', title: 'Offer' }, content_language: 'en-GB', action: { type: 'url' } });
      expect(JSON.stringify(got)).not.toContain(endpoint);
      expect(partnerCalls).toEqual([]);
    });

    it('a paused offer or changed targeting counts from the next Query after the projector applied it', async () => {
      const offerId = await admin.offer({ partner_id: partnerId, details: details('churn'), destination_url: 'https://churn.example/' });
      const served = async () => (await cards(t.app, { limit: 10, context: { categories: ['churn'] } })).some((card) => card.offer_id === offerId);
      expect(await served()).toBe(true);
      await admin.offer({ offer_id: offerId, partner_id: partnerId, details: details('churn'), status: 'paused' });
      expect(await served()).toBe(false);
      await admin.offer({ offer_id: offerId, partner_id: partnerId, details: details('churn'), targeting: [{ geo: { include: include('2840'), exclude: [] } }] });
      expect(await served()).toBe(false);
      await admin.offer({ offer_id: offerId, partner_id: partnerId, details: details('churn') });
      expect(await served()).toBe(true);
    });
  });
});
