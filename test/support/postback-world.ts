import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { clickLink } from '../../commands/clicks/click.js';
import type { Runtime } from '../../platform/runtime.js';
import type { OfferServed } from '../../schemas/generated/events.js';
import { details, servingAdmin } from './serving-fixtures.js';
import { appendServe } from './serves.js';

export const PROTOCOL = { 'svc-protocol-version': '1.0', 'content-type': 'application/json' };

/**
 * A partner with an allowlist and a goal mapping, its offers (a CPA goal and a CPS goal) and an
 * application that served them: what a postback is attributed to. Made through the admin
 * commands, so the projectors must run.
 */
export async function postbackWorld(runtime: Runtime, options: { allow?: string[] } = {}) {
  const admin = servingAdmin(runtime);
  const allow = options.allow ?? ['127.0.0.1', '::1'];
  const mapping = [
    { event_name: 'purchase', goal_event: 'install' },
    { event_name: 'sale', goal_event: 'sale' },
  ];
  const partner = (await admin.run('partner:configure', { name: 'postback partner', source_ip_allowlist: allow, goal_mappings: mapping })).partner_id!;
  const otherPartner = (await admin.run('partner:configure', { name: 'other partner', source_ip_allowlist: allow, goal_mappings: mapping })).partner_id!;
  const disabledPartner = (await admin.run('partner:configure', { name: 'disabled partner', enabled: false, source_ip_allowlist: allow, goal_mappings: mapping })).partner_id!;
  const cpsDetails = { ...details('cps'), goals: [{ event: 'sale', pricing: { model: 'cps', rate: '7.5' } }] };
  const cpaOffer = await admin.offer({ partner_id: partner, details: details('cpa', { amount: '12.50' }), destination_url: 'https://shop.example/a' });
  const cpsOffer = await admin.offer({ partner_id: partner, details: cpsDetails, destination_url: 'https://shop.example/b' });
  const foreignOffer = await admin.offer({ partner_id: otherPartner, details: details('foreign'), destination_url: 'https://shop.example/c' });
  const application = await admin.application(await admin.developer());

  const serve = (offerId: string): Promise<OfferServed> => appendServe(runtime, { offer_id: offerId, application_id: application });
  /** A click on a link (a card's, or a registered one), applied to the clicks read model. */
  const clickOn = async (link: { shape: 'short_code' | 'instance_uuid' | 'static_path'; code: string }): Promise<string> => {
    const result = await clickLink(runtime, { link, sub_ids: {} }, new Date());
    if (result.status !== 'clicked') throw new Error(`click on ${link.code} was ${result.status}`);
    if (!(await (await runtime.watermarks()).awaitApplied('clicks', [result.appended], 30_000))) throw new Error('clicks projection did not apply the click');
    return result.event.svc_click_id;
  };
  /** A click on a served card's short link. */
  const click = (card: OfferServed): Promise<string> => clickOn({ shape: 'short_code', code: card.link_code! });
  return { admin, partner, otherPartner, disabledPartner, cpaOffer, cpsOffer, foreignOffer, application, serve, click, clickOn };
}

/** Posts a current-contract postback (JSON, protocol header) through inject. */
export function postPostback(app: FastifyInstance, partnerId: string, body: unknown, headers: Record<string, string> = {}, extra: { remoteAddress?: string } = {}): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/v1/postback/${partnerId}`,
    headers: { ...PROTOCOL, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
    ...extra,
  });
}
