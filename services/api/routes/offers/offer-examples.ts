import { failure } from '../../../../platform/http/envelope.js';
import type { ResponseExample } from '../../../../platform/http/response-examples.js';

/**
 * What the examples of the offer routes (Query, instances, info) share: one offer with stored
 * details (reference: Offer object) and the refusals of an application's credentials.
 */

export const EXAMPLE_OFFER_ID = '0192f7c1-6a3e-7b2d-9c41-5e8f0a1b2c3d';
export const EXAMPLE_INSTANCE_ID = '0192f7c4-0d15-7e9a-8b6c-2f4a6d8e0b1c';
export const EXAMPLE_PLACEMENT_ID = '0192f7a0-3b4c-7d5e-8f60-718293a4b5c6';
export const EXAMPLE_LINK = 'https://go.example.com/l/Hq7Zk2Pa';

/** A local offer's public details, as stored: the fields the offer info route returns for an id-only read (no content_language: only a remote offer's snapshot has one). */
export const exampleOffer = {
  offer_id: EXAMPLE_OFFER_ID,
  version: '3.0',
  offer_info: {
    status: 'active',
    title: 'Spring sale: 10% off everything',
    category: { id: 'shopping' },
    description: 'Ten percent off the whole store until the end of the month.',
  },
  entity: { id: 'acme', name: 'Acme Store', type: 'merchant' },
  goals: [
    { event: 'install', pricing: { model: 'cpa', amount: '12.50', currency: 'USD' } },
    { event: 'purchase', pricing: { model: 'cps', rate: '7.5' } },
  ],
  material: [{ format: 'image', url: 'https://cdn.example.com/acme/icon-512.png', tag: 'icon' }],
};

/** The card's tracked short link, while it can be opened. */
export const exampleAction = { type: 'url', payload: { url: EXAMPLE_LINK } };

const refusal = (code: string, message: string, summary: string): Record<string, ResponseExample> => ({ [code]: { summary, value: failure(code, message) } });

/** 401 and 403 of the instance and info routes (reference: Authentication). */
export const credentialRefusals = {
  401: refusal('UNAUTHORIZED', 'test keys are not supported on this route; use a Live API Key', 'a Test Key (or a missing, invalid or revoked key)'),
  403: {
    ...refusal('APPLICATION_NOT_SERVING', 'the application cannot currently serve (status paused)', 'a paused application'),
    ...refusal('DEVELOPER_SUSPENDED', 'the developer account is suspended', 'a suspended developer account'),
    ...refusal('PUBLIC_TEST_SCOPE_DENIED', 'the public sandbox key is limited to the Query route', 'the shared sandbox key'),
  },
};
