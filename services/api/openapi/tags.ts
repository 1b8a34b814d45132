/**
 * The groups of /docs: every public operation names one of these in its `schema.tags`, and the
 * document lists them in this order with their descriptions.
 */
export const TAG = {
  locations: 'Locations',
  query: 'Query',
  offers: 'Offers',
  links: 'Tracked links',
  postbacks: 'Postbacks',
  health: 'Health',
} as const;

export type Tag = (typeof TAG)[keyof typeof TAG];

export const TAG_DESCRIPTIONS: Record<Tag, string> = {
  Locations: 'Location registry lookup and normalization (public): search, resolve and exact lookup in the LEGACY and FULL catalogs.',
  Query: 'Serve offer cards for a placement; each card is one serving with its offer_instance_id.',
  Offers: 'Read served cards by offer_instance_id and the current public details of one offer (Live API Key).',
  'Tracked links': 'The link origin: open a tracked short link, recording the click and redirecting to the destination.',
  Postbacks: 'Partner conversion reports, the current JSON contract and the compatibility shapes.',
  Health: 'Liveness, readiness and Prometheus metrics.',
};
