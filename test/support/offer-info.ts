import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { appendEvents } from '../../commands/append.js';
import { offerEvent } from '../../commands/offers/events.js';
import { v7 as uuidv7 } from 'uuid';
import type { Runtime } from '../../platform/runtime.js';
import { TOPICS } from '../../schemas/topics.js';
import { EventType, type RemoteSnapshotPublished } from '../../schemas/generated/events.js';

export const INFO_PATH = '/v1/offers/info';
export const enc = encodeURIComponent;

/** Requests to GET /v1/offers/info of one app. */
export function infoClient(app: FastifyInstance) {
  const get = (key: string | undefined, query: string, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'GET',
      url: query === '' ? INFO_PATH : `${INFO_PATH}?${query}`,
      headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
    });
  return {
    get,
    byId: (key: string, offerId: string) => get(key, `offer_id=${offerId}`),
    byLink: (key: string, url: string) => get(key, `offerurl=${enc(url)}`),
    both: (key: string, offerId: string, url: string) => get(key, `offer_id=${offerId}&offerurl=${enc(url)}`),
  };
}

/** The offer object of a 200, after checking the envelope around it. */
export function expectOffer(response: LightMyRequestResponse): Record<string, any> {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json();
  expect(Object.keys(body).sort()).toEqual(['code', 'data', 'extra', 'message']);
  expect(body).toMatchObject({ code: 'SUCCESS', message: '', extra: {} });
  expect(body.data).not.toHaveProperty('offer_instance_id');
  return body.data;
}

export function expectFailure(response: LightMyRequestResponse, status: number, code: string, message?: RegExp) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body).toEqual({ code, message: expect.any(String), data: {}, extra: {} });
  if (message) expect(body.message).toMatch(message);
}

/** Every topic's end offsets, as one comparable string. */
export async function topicEnds(runtime: Runtime): Promise<string> {
  const ends = await Promise.all(TOPICS.map(async ({ topic }) => (await runtime.eventLog.endOffsets(topic)).map((end) => `${topic}/${end.partition}:${end.offset}`)));
  return ends.flat().sort().join(',');
}

/**
 * Stores a snapshot as given, bypassing the command's validation (as a partner feed that went
 * wrong would), and waits until the offers read model has it.
 */
export async function storeRawSnapshot(runtime: Runtime, snapshot: Omit<RemoteSnapshotPublished, 'event_id' | 'published_at'> & { event_id?: string }) {
  const value: RemoteSnapshotPublished = { event_id: uuidv7(), published_at: Date.now(), ...snapshot };
  const appended = await appendEvents(runtime, 'offers', [offerEvent(EventType.RemoteSnapshotPublished, value)]);
  const watermarks = await runtime.watermarks();
  if (!(await watermarks.awaitApplied('offers', appended, 30_000))) throw new Error('the offers read model did not apply the snapshot in time');
}
