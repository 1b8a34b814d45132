import { firstSchemaError } from '../../platform/validation/first-schema-error.js';
import { offerDetailsDocument, pricingProblem, type OfferDetailsDocument } from '../../schemas/documents/offer.js';

export type SnapshotContent = { ok: true; details: OfferDetailsDocument } | { ok: false; problem: string };

/**
 * Reads a stored snapshot's JSON text. A snapshot that is not a valid details document is
 * reported, never half-read: the offer info route answers 503 for it.
 */
export function readSnapshotContent(content: string): SnapshotContent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return { ok: false, problem: 'content is not JSON' };
  }
  const first = firstSchemaError(offerDetailsDocument, parsed);
  if (first) return { ok: false, problem: `content${first.path.replace(/\//g, '.')}: ${first.message}` };
  const pricing = pricingProblem(parsed as OfferDetailsDocument);
  if (pricing) return { ok: false, problem: `content.${pricing.field}: ${pricing.message}` };
  return { ok: true, details: parsed as OfferDetailsDocument };
}
