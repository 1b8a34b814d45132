import { Type } from '@sinclair/typebox';
import { type ApiError, badRequest } from '../../../../platform/http/errors.js';
import { ANY_CASE_UUID, ANY_CASE_UUID_PATTERN, isCanonicalUuid } from '../../../../platform/ids/uuid-text.js';

/** Most ids one request may ask for (reference: Limits). */
const MAX_INSTANCE_IDS = 100;

/** What every 400 about the id list says first (reference: Errors, instance route). */
export const ID_LIST_RULE = `offer_instance_ids must contain between 1 and ${MAX_INSTANCE_IDS} offer instance ids`;

/** The request body as documented; parseInstancesBody is what enforces it, with the reference's messages. */
export const instancesRequestBody = Type.Object(
  {
    offer_instance_ids: Type.Array(Type.String({ format: 'uuid', pattern: ANY_CASE_UUID_PATTERN }), {
      minItems: 1,
      maxItems: MAX_INSTANCE_IDS,
      description: 'offer_instance_id values of served cards, any case; duplicates after lowercasing are removed keeping the first',
    }),
  },
  { additionalProperties: false },
);

export interface InstancesRequest {
  /** Canonical lowercase ids, duplicates removed keeping the first occurrence, in request order. */
  offer_instance_ids: string[];
}

const listError = (detail: string) => badRequest(`${ID_LIST_RULE}; ${detail}`);

/** A refusal about the body as this route states it: the id list's rule first (the route's table has no 413 or 415). */
export const idListRefusal = (error: ApiError) => badRequest(`${ID_LIST_RULE}; ${error.message}`, error.extra);

function describeItem(value: unknown, index: number): string {
  const at = `offer_instance_ids[${index}]`;
  if (typeof value !== 'string') return `${at} is not a string UUID`;
  // A tracked link is an offer info input, never an instance id (reference: rule 4).
  if (value.includes('://')) return `${at} is a URL, not a UUID; send the card's offer_instance_id`;
  return `${at} is not a UUID`;
}

/** Where each id kept so far sits in `ids` (-1: free), by slot; over twice the most ids, so a probe stays short. */
const SEEN_MASK = 255;
const firstSeen = new Int16Array(SEEN_MASK + 1);

/**
 * Checks a parsed JSON body against the closed body of `POST /v1/offers/instances` and returns
 * the ids to look up. Throws 400 BAD_REQUEST: unknown fields are named; every problem with the id
 * list (missing, not an array, empty, over 100 items, an item that is not a UUID) states the rule.
 * The limit counts the items as sent, before duplicates are removed.
 */
export function parseInstancesBody(body: unknown): InstancesRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw listError('the body must be a JSON object holding that list');
  }
  const unknown = Object.keys(body).find((field) => field !== 'offer_instance_ids');
  if (unknown !== undefined) throw badRequest(`unknown body field ${JSON.stringify(unknown)}; the body holds only offer_instance_ids`);
  const list = (body as { offer_instance_ids?: unknown }).offer_instance_ids;
  if (list === undefined) throw listError('offer_instance_ids is missing');
  if (!Array.isArray(list)) throw listError('offer_instance_ids is not an array');
  if (list.length === 0) throw listError('the list is empty');
  if (list.length > MAX_INSTANCE_IDS) throw listError(`the list has ${list.length} items`);
  const ids: string[] = [];
  const seen = firstSeen.fill(-1);
  for (let index = 0; index < list.length; index += 1) {
    const value: unknown = list[index];
    if (typeof value !== 'string') throw listError(describeItem(value, index));
    let id = value;
    // Most callers send the canonical form already: no lowercasing needed.
    if (!isCanonicalUuid(value)) {
      if (!ANY_CASE_UUID.test(value)) throw listError(describeItem(value, index));
      id = value.toLowerCase();
    }
    // Open addressing on the id's last characters (random in a UUID), cheaper than a Set, which hashes all 36.
    let slot = (id.charCodeAt(35) * 31 + id.charCodeAt(34) * 17 + id.charCodeAt(33)) & SEEN_MASK;
    while (seen[slot] !== -1 && ids[seen[slot]!] !== id) slot = (slot + 1) & SEEN_MASK;
    if (seen[slot] !== -1) continue;
    seen[slot] = ids.length;
    ids.push(id);
  }
  return { offer_instance_ids: ids };
}
