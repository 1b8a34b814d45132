import { describe, expect, it } from 'vitest';
import { projectOfferInfo } from '../../projections/offers/offer-info.js';
import { publicStatus } from '../../projections/offers/public-offer.js';
import type { StoredOffer, StoredSnapshot } from '../../projections/offers/queries.js';
import type { OfferDetailsDocument } from '../../schemas/documents/offer.js';
import { infoOffer } from '../../services/api/routes/offers/info.js';

const DETAILS: OfferDetailsDocument = {
  offer_info: { title: 'Spring sale', category: { id: 'shopping' }, description: 'Ten percent off' },
  entity: { id: 'acme', name: 'Acme', type: 'merchant' },
  goals: [
    { event: 'install', pricing: { model: 'cpa', amount: '12.50', currency: 'USD' } },
    { event: 'sale', pricing: { model: 'cps', rate: '7.5' } },
  ],
  action: { name: 'Shop now', consumer_action: 'Open the store' },
};

const offer = (overrides: Partial<StoredOffer> = {}): StoredOffer => ({
  offer_id: '01939c5e-7b1a-7c3e-9f00-0123456789ab',
  partner_id: 'p',
  kind: 'local',
  status: 'active',
  deleted: false,
  delisted: false,
  test_only: false,
  updated_at: new Date(0),
  details: DETAILS,
  ...overrides,
});
const remote = (overrides: Partial<StoredOffer> = {}) => offer({ kind: 'remote', details: null, ...overrides });
const snapshot = (content: unknown, language: string | null = 'en'): StoredSnapshot => ({
  snapshot_id: 's1',
  offer_id: '01939c5e-7b1a-7c3e-9f00-0123456789ab',
  language,
  updated_at: new Date(0),
  content: typeof content === 'string' ? content : JSON.stringify(content),
});

describe('projectOfferInfo', () => {
  it('shows an active public local offer as stored, without content_language', () => {
    const result = projectOfferInfo(offer(), undefined);
    expect(result).toEqual({
      status: 'public',
      offer: {
        offer_id: offer().offer_id,
        version: '3.0',
        offer_info: { status: 'active', ...DETAILS.offer_info },
        entity: DETAILS.entity,
        goals: DETAILS.goals,
        action: DETAILS.action,
      },
    });
  });

  it.each([
    ['unknown', undefined],
    ['paused', offer({ status: 'paused' })],
    ['pending', offer({ status: 'pending' })],
    ['rejected', offer({ status: 'rejected' })],
    ['expired', offer({ status: 'expired' })],
    ['deleted', offer({ deleted: true })],
    ['delisted', offer({ delisted: true })],
    ['test-only', offer({ test_only: true })],
    ['without details', offer({ details: null })],
  ])('hides a local offer that is %s', (_what, stored) => {
    expect(projectOfferInfo(stored, undefined)).toMatchObject({ status: 'hidden' });
  });

  it.each(['active', 'paused', 'pending', 'rejected', 'expired'] as const)(
    'shows a %s remote offer with an active snapshot, reported expired with the snapshot language',
    (status) => {
      const result = projectOfferInfo(remote({ status }), snapshot(DETAILS, 'en-US'));
      expect(result).toMatchObject({ status: 'public', offer: { offer_info: { status: 'expired', title: 'Spring sale' }, content_language: 'en-US' } });
      expect(result.status === 'public' && result.offer.offer_info.status).toBe(publicStatus(remote({ status })));
    },
  );

  it('omits content_language when the snapshot language is unknown', () => {
    const result = projectOfferInfo(remote(), snapshot(DETAILS, null));
    expect(result.status === 'public' && result.offer).not.toHaveProperty('content_language');
  });

  it.each([
    ['deleted', remote({ deleted: true }), snapshot(DETAILS)],
    ['delisted', remote({ delisted: true }), snapshot(DETAILS)],
    ['test-only', remote({ test_only: true }), snapshot(DETAILS)],
    ['without an active snapshot', remote(), undefined],
  ])('hides a remote offer that is %s', (_what, stored, selected) => {
    expect(projectOfferInfo(stored, selected)).toMatchObject({ status: 'hidden' });
  });

  it.each([
    ['not JSON', '{"offer_info":'],
    ['half a document', { offer_info: { title: 'Half' } }],
    ['an array', []],
    ['cpa pricing without currency', { ...DETAILS, goals: [{ event: 'install', pricing: { model: 'cpa', amount: '1' } }] }],
    ['an undeclared field', { ...DETAILS, targeting: [] }],
  ])('reports a selected snapshot that is %s as unreadable, never as a partial offer', (_what, content) => {
    expect(projectOfferInfo(remote(), snapshot(content))).toMatchObject({ status: 'unreadable', problem: expect.stringContaining('snapshot s1') });
  });
});

describe('infoOffer', () => {
  const projected = projectOfferInfo(offer(), undefined);
  const shown = projected.status === 'public' ? projected.offer : undefined;

  it('answers a public offer with every field the reference requires when details are returned', () => {
    // The stored details as they are, with the status and the document version; the action's
    // name and consumer action stay until infoOffer decides on the action.
    expect(shown).toEqual({
      offer_id: '01939c5e-7b1a-7c3e-9f00-0123456789ab',
      version: '3.0',
      offer_info: { status: 'active', title: 'Spring sale', category: { id: 'shopping' }, description: 'Ten percent off' },
      entity: { id: 'acme', name: 'Acme', type: 'merchant' },
      goals: [
        { event: 'install', pricing: { model: 'cpa', amount: '12.50', currency: 'USD' } },
        { event: 'sale', pricing: { model: 'cps', rate: '7.5' } },
      ],
      action: { name: 'Shop now', consumer_action: 'Open the store' },
    });
  });

  it('has no action for an id-only read', () => {
    expect(infoOffer(shown!, undefined)).not.toHaveProperty('action');
  });

  it('has the submitted link as action with the details\' name and consumer_action', () => {
    const link = 'https://go.example.test/l/Ab3dE6gH?x=1#f';
    expect(infoOffer(shown!, link).action).toEqual({ type: 'url', payload: { url: link }, name: 'Shop now', consumer_action: 'Open the store' });
  });

  it('has only type and payload when the details have no action fields', () => {
    const bare = projectOfferInfo(offer({ details: { ...DETAILS, action: undefined } }), undefined);
    if (bare.status !== 'public') throw new Error('expected a public offer');
    expect(infoOffer(bare.offer, 'https://go.example.test/l/Ab3dE6gH').action).toEqual({
      type: 'url',
      payload: { url: 'https://go.example.test/l/Ab3dE6gH' },
    });
  });
});
