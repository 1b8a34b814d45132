import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../platform/runtime.js';
import { buildApp } from '../../services/api/app.js';
import { openPostbackRefusals } from '../../services/api/postback-refusals.js';
import { startProjectors } from '../../services/projector/projectors.js';
import { createTestRuntime } from './app.js';
import { postbackWorld, postPostback } from './postback-world.js';

export const ADMIN_TOKEN = 'postback-page-admin-token-0123456789abcdef';
/** Partner-supplied text that would run as script if the page did not escape it. */
export const HOSTILE_EVENT = '<img src=x onerror="document.title=\'pwned\'">';
export const HOSTILE_TXN = '"><script>document.title="pwned"</script>';
export const UNKNOWN_PARTNER = '0193b2c4-5d6e-7f80-9a1b-2c3d4e5f6a7b';

/**
 * The postbacks the operator page is tested on, posted through the API: one of each decision,
 * attributed by click, card and tracked link, for two partners, one with hostile text; and two
 * refusals that never reached the log. Returns the correlation ids by name and the log's order.
 */
export async function postbackPageWorld(runtime: Runtime, app: FastifyInstance) {
  const world = await postbackWorld(runtime);
  const cardA = await world.serve(world.cpaOffer);
  const cardB = await world.serve(world.cpaOffer);
  const foreignCard = await world.serve(world.foreignOffer);
  const clickA = await world.click(cardA);
  const stamp = Date.now().toString(36);
  const ids = { event: `evt-${stamp}`, order: `order-${stamp}`, txn: `txn-${stamp}`, foreign: `evt-foreign-${stamp}` };

  const posted: Record<string, string> = {};
  async function post(name: string, partner: string, body: Record<string, string>, expected: number) {
    const response = await postPostback(app, partner, body);
    if (response.statusCode !== expected) throw new Error(`${name}: ${response.statusCode} ${response.body}`);
    const json = response.json();
    posted[name] = expected === 200 ? json.data.correlation_id : json.extra.correlation_id;
  }
  const first = { event_name: 'purchase', svc_click_id: clickA, event_id: ids.event };
  await post('accepted', world.partner, first, 200);
  await post('duplicate', world.partner, first, 200);
  await post('conflict', world.partner, { ...first, amount: '5.00', currency: 'USD' }, 409);
  await post('unmapped', world.partner, { event_name: 'newsletter', offer_instance_id: cardB.offer_instance_id, order_id: ids.order }, 200);
  await post('hostile', world.partner, { event_name: HOSTILE_EVENT, svc_tracking_id: cardB.link_code!, partner_txn_id: HOSTILE_TXN }, 200);
  await post('foreign', world.otherPartner, { event_name: 'purchase', offer_instance_id: foreignCard.offer_instance_id, event_id: ids.foreign }, 200);
  // Refused before the log: kept only in the diagnostics store.
  await post('refusedPartner', UNKNOWN_PARTNER, { event_name: '<script>document.title="pwned"</script>', offer_instance_id: cardA.offer_instance_id, event_id: 'refused-1' }, 404);
  await post('refusedPayload', world.partner, { event_name: 'purchase', offer_instance_id: cardA.offer_instance_id, event_id: 'refused-2', amount: 'lots' } as Record<string, string>, 400);

  // already_recorded answers with the original id: the duplicate's own id is in the log.
  const { rows } = await runtime.db.query<{ correlation_id: string; decision: string; received_at: Date }>(
    `SELECT correlation_id, decision, received_at FROM postback_log ORDER BY received_at DESC, correlation_id`,
  );
  posted.duplicate = rows.find((row) => row.decision === 'already_recorded')!.correlation_id;
  return { world, cards: { a: cardA, b: cardB, foreign: foreignCard }, clickA, ids, posted, logOrder: rows.map((row) => row.correlation_id), logRows: rows };
}

export type PostbackPageWorld = Awaited<ReturnType<typeof postbackPageWorld>>;

/** The API with ADMIN_TOKEN on a fresh runtime (event log in SQL), its projectors, and the page's postbacks posted and stored. */
export async function startPostbackPageApp() {
  const t = await createTestRuntime({ eventLog: 'sql', env: { ADMIN_TOKEN } });
  const refusals = openPostbackRefusals(t.runtime);
  const app = await buildApp({ runtime: t.runtime, postbackRefusals: refusals });
  const projectors = await startProjectors(t.runtime);
  const close = async () => {
    await projectors.stop();
    await app.close();
    await t.close();
  };
  try {
    const world = await postbackPageWorld(t.runtime, app);
    await refusals.flush();
    return { app, world, close, database: t.database };
  } catch (error) {
    await close();
    throw error;
  }
}
